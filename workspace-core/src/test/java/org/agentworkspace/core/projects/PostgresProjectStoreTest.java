package org.agentworkspace.core.projects;

import org.agentworkspace.core.TestDatabases;

class PostgresProjectStoreTest extends AbstractProjectStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        TestDatabases.dropPostgres(url);
    }
}
