package org.agentworkspace.core.index;

import org.agentworkspace.core.TestDatabases;

class SqliteHistoryIndexTest extends AbstractHistoryIndexTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(tmp);
    }
}
