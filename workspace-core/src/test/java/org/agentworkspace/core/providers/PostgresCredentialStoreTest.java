package org.agentworkspace.core.providers;

import org.agentworkspace.core.TestDatabases;

class PostgresCredentialStoreTest extends AbstractCredentialStoreTest {
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
