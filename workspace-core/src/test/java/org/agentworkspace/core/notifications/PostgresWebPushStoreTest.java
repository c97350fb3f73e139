package org.agentworkspace.core.notifications;

import org.agentworkspace.core.TestDatabases;

class PostgresWebPushStoreTest extends AbstractWebPushStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        if (url != null) {
            TestDatabases.dropPostgres(url);
        }
    }
}
