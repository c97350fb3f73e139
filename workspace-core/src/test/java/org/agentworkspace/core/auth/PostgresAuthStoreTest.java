package org.agentworkspace.core.auth;

import org.agentworkspace.core.TestDatabases;

class PostgresAuthStoreTest extends AbstractAuthStoreTest {
    @Override
    protected String createDatabase() {
        return TestDatabases.createPostgres();
    }

    @Override
    protected void dropDatabase() {
        TestDatabases.dropPostgres(url);
    }
}
