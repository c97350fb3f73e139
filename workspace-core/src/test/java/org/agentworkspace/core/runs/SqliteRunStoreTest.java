package org.agentworkspace.core.runs;

import org.agentworkspace.core.TestDatabases;

class SqliteRunStoreTest extends AbstractRunStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(tmp);
    }
}
