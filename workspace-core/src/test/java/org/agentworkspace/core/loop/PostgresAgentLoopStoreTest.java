package org.agentworkspace.core.loop;

import org.agentworkspace.core.TestDatabases;

class PostgresAgentLoopStoreTest extends AbstractAgentLoopStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        TestDatabases.dropPostgres(url);
    }
}
