package org.agentworkspace.core.loop;

import org.agentworkspace.core.TestDatabases;

class SqliteAgentLoopStoreTest extends AbstractAgentLoopStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(tmp);
    }

    @Override
    protected void dropDatabase() {
        // the file goes with the test's temporary folder
    }
}
