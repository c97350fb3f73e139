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
 */
public record ContractHost(boolean local) {
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
