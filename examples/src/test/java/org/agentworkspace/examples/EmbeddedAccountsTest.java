package org.agentworkspace.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Set;

import org.agentworkspace.api.Scope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedAccountsTest {
    @Test
    void theEngineWorksWithoutTheServer(@TempDir Path dir) {
        EmbeddedAccounts.Result first = EmbeddedAccounts.run(dir);
        assertTrue(first.admin().admin());
        assertEquals(Set.of(Scope.PROJECTS_READ, Scope.TASKS_READ), first.principal().scopes());
        // a second run on the same data directory finds the same administrator
        EmbeddedAccounts.Result second = EmbeddedAccounts.run(dir);
        assertEquals(first.admin().id(), second.admin().id());
    }
}
