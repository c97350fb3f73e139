package org.agentworkspace.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.agentworkspace.testkit.contract.ContractTarget;
import org.agentworkspace.testkit.contract.ContractTargetProvider;

/**
 * Runs the testkit's contract suite against the real server in this build: a fresh data directory, a free loopback
 * port, over a real socket. The suite registers the account itself (the server starts needing setup). Found by the
 * suite through {@code META-INF/services}.
 */
public final class EmbeddedContractTarget implements ContractTargetProvider {
    private WorkspaceServer server;
    private Path home;
    /** Exits the server asked for (restart, self-update); the embedded server goes on serving. */
    private final java.util.concurrent.atomic.AtomicInteger exits = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public ContractTarget start() throws Exception {
        Path dir = Files.createTempDirectory("aw-contract-");
        // a HOME of its own: the suite's MCP and config checks must never touch the real one; the agent-run
        // contract tests run full runs when the target is local: fake CLIs on this host
        home = Files.createDirectories(dir.resolve("home"));
        Path bin = org.agentworkspace.testkit.fakecli.FakeClis.install(dir.resolve("fake-bin"));
        // self-update never touches this build's own checkout (an empty folder is no checkout: UPDATE_NOT_CONFIGURED),
        // and a restart or update exit is only logged: the suite's JVM is not the server's to end
        Path noCheckout = Files.createDirectories(dir.resolve("no-checkout"));
        server = WorkspaceServer.start(org.agentworkspace.server.TestServer.config(dir.resolve("data")).withAgent(
                org.agentworkspace.core.agent.AgentSettings.defaults().withBinaries(Map.of("*", bin)))
                .withUpdate(org.agentworkspace.core.system.UpdateSettings.defaults(dir.resolve("data"))
                        .withSourceDir(noCheckout)),
                Map.of("HOME", home.toString()), status -> exits.incrementAndGet());
        return ContractTarget.of("http://127.0.0.1:" + server.port(), "contract-admin", "contract-admin-password");
    }

    /** The embedded server runs in this JVM: tests may prepare folders (git repositories) for it. */
    @Override
    public boolean local() {
        return true;
    }

    /** The server's HOME is also its history home (the default): the history tests seed sessions there. */
    @Override
    public java.util.Optional<Path> historyHome() {
        return java.util.Optional.ofNullable(home);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
