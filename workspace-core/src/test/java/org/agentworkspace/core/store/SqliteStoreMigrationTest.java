package org.agentworkspace.core.store;

import java.nio.file.Path;

import org.agentworkspace.core.TestDatabases;
import org.junit.jupiter.api.io.TempDir;

class SqliteStoreMigrationTest extends AbstractStoreMigrationTest {
    @TempDir
    Path dir;

    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(dir);
    }
}
