package org.agentworkspace.core.providers;

import java.nio.file.Files;
import java.nio.file.Path;

import org.agentworkspace.core.TestDatabases;

class SqliteCredentialStoreTest extends AbstractCredentialStoreTest {
    private Path dir;

    @Override
    protected String createDatabase() throws Exception {
        dir = Files.createTempDirectory("aw-cred-");
        return TestDatabases.sqlite(dir);
    }

    @Override
    protected void dropDatabase() {
        // the temporary directory is left to the OS
    }
}
