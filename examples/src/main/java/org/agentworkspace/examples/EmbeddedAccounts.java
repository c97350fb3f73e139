package org.agentworkspace.examples;

import java.nio.file.Path;
import java.util.EnumSet;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;

/**
 * Embedding the engine in a plain JVM program, without the HTTP server: open it on a data directory, create the
 * administrator, mint a read-only key and check it the way the server does for each request.
 *
 * <p>Run: {@code java -p examples/target/classes:... -m org.agentworkspace.examples/org.agentworkspace.examples.EmbeddedAccounts /tmp/aw-demo}
 */
public final class EmbeddedAccounts {
    private EmbeddedAccounts() {
    }

    /** What the example produced, for callers (and its test) to inspect. */
    public record Result(User admin, ApiKeyInfo key, Principal principal) {
    }

    public static Result run(Path dataDir) {
        try (WorkspaceEngine engine = WorkspaceEngine.open(EngineConfig.create(dataDir))) {
            User admin = engine.auth().accounts().needsSetup()
                    ? engine.auth().accounts().registerFirstUser("admin", "change-me-please")
                    : engine.auth().accounts().list().getFirst();
            ApiKeyInfo key = engine.auth().apiKeys().create(admin.id(), "reporting",
                    EnumSet.of(Scope.PROJECTS_READ, Scope.TASKS_READ));
            Principal principal = engine.auth().apiKeys().authenticate(key.value()).orElseThrow();
            return new Result(admin, key, principal);
        }
    }

    public static void main(String[] args) {
        Result r = run(Path.of(args.length > 0 ? args[0] : "aw-example-data"));
        System.Logger log = System.getLogger(EmbeddedAccounts.class.getName());
        log.log(System.Logger.Level.INFO, "administrator " + r.admin().username() + " has key " + r.key().id()
                + " with scopes " + r.principal().scopes());
    }
}
