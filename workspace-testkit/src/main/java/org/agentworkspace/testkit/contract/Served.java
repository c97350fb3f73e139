package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/** What to do when a documented route answers {@code ROUTE_NOT_FOUND}: the family is not deployed there. */
final class Served {
    private Served() {
    }

    /**
     * Returns {@code res} unless it is 404 {@code ROUTE_NOT_FOUND}. Then a remote target (perhaps an older
     * deployment) skips the calling test, while the local, embedded target fails: the build's own server must
     * serve every family the suite checks.
     */
    static ContractResponse require(ContractResponse res, ContractHost host, String family) {
        if (res.status() == 404 && "ROUTE_NOT_FOUND".equals(res.errorCode())) {
            if (host.local()) {
                fail("the service does not serve the " + family + " family: " + res.describe());
            }
            Assumptions.abort("the service does not serve the " + family + " family (ROUTE_NOT_FOUND); skipped");
        }
        return res;
    }
}
