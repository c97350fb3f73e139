package org.agentworkspace.core.runs;

import org.agentworkspace.core.TestDatabases;

class PostgresRunStoreTest extends AbstractRunStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        TestDatabases.dropPostgres(url);
    }
}
