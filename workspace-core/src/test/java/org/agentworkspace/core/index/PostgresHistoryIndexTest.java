package org.agentworkspace.core.index;

import org.agentworkspace.core.TestDatabases;

class PostgresHistoryIndexTest extends AbstractHistoryIndexTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        TestDatabases.dropPostgres(url);
    }
}
