package org.agentworkspace.testkit.contract;

import org.junit.jupiter.api.Assumptions;

/**
 * Where the service under test runs, as far as the suite can use it. Injected into contract tests like
 * {@link ContractClient}.
 *
 * @param local the service runs on this host and shares its filesystem: a test may prepare a folder with local
 *              tools (for example a git repository and a bare remote with the {@code git} command) and hand its path
 *              to the service. Set by the embedded target's provider, or by {@code aw.contract.local=true} /
 *              the runner's {@code --local}
 * @param historyHome the directory the service reads CLI history from, or null when unknown
 */
public record ContractHost(boolean local, java.nio.file.Path historyHome) {
    /** A host without a known history home. */
    public ContractHost(boolean local) {
        this(local, null);
    }

    /**
     * The service's history home (where the CLIs' session files are read from), skipping the calling test unless
     * the service is local and its history home is known ({@link ContractTargetProvider#historyHome()}, or
     * {@code aw.contract.historyHome} / the runner's {@code --history-home}).
     */
    public java.nio.file.Path assumeHistoryHome(String what) {
        assumeLocal(what);
        if (historyHome == null) {
            String reason = what + " needs the service's history home (aw.contract.historyHome or --history-home); "
                    + "skipped";
            System.getLogger(ContractHost.class.getName()).log(System.Logger.Level.WARNING, "SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
        return historyHome;
    }

    /**
     * Skips the calling test unless the service shares this host's filesystem. The reason is logged and is the
     * skip's reason (the runner prints it as {@code SKIPPED <test>: <reason>}).
     */
    public void assumeLocal(String what) {
        if (!local) {
            String reason = what + " needs a service on this host (aw.contract.local=true or --local); skipped";
            System.getLogger(ContractHost.class.getName()).log(System.Logger.Level.WARNING, "SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
    }
}
