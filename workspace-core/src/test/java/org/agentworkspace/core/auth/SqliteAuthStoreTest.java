package org.agentworkspace.core.auth;

import java.nio.file.Path;

import org.agentworkspace.core.TestDatabases;
import org.junit.jupiter.api.io.TempDir;

class SqliteAuthStoreTest extends AbstractAuthStoreTest {
    @TempDir
    Path dir;

    @Override
    protected String createDatabase() {
        return TestDatabases.sqlite(dir);
    }
}
