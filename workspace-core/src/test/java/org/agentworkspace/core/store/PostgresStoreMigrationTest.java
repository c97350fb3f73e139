package org.agentworkspace.core.store;

import org.agentworkspace.core.TestDatabases;

class PostgresStoreMigrationTest extends AbstractStoreMigrationTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        TestDatabases.dropPostgres(url);
    }
}
