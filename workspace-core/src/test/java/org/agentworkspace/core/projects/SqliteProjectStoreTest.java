package org.agentworkspace.core.projects;

import org.agentworkspace.core.TestDatabases;

class SqliteProjectStoreTest extends AbstractProjectStoreTest {
    @Override
    protected String createDatabase() throws Exception {
        return TestDatabases.sqlite(java.nio.file.Files.createDirectories(tmp.resolve("db")));
    }
}
