package org.agentworkspace.core.notifications;

import java.nio.file.Files;

import org.agentworkspace.core.TestDatabases;

class SqliteWebPushStoreTest extends AbstractWebPushStoreTest {
    @Override
    protected String createDatabase() throws Exception {
        return TestDatabases.sqlite(Files.createTempDirectory("aw-push-"));
    }

    @Override
    protected void dropDatabase() {
        // the temporary directory is left to the OS
    }
}
