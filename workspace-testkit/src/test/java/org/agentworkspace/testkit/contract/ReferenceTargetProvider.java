package org.agentworkspace.testkit.contract;

import java.io.IOException;

/**
 * Test provider found by {@link java.util.ServiceLoader}: starts a fresh {@link ReferenceServer} that still needs
 * setup, so the extension's register-first path runs. It records its address in a system property so the test can
 * check it was stopped.
 */
public final class ReferenceTargetProvider implements ContractTargetProvider {
    static final String LAST_URL = "aw.test.referenceProvider.lastUrl";

    private ReferenceServer server;

    @Override
    public ContractTarget start() throws IOException {
        server = ReferenceServer.start(ReferenceServer.Defect.NONE);
        System.setProperty(LAST_URL, server.baseUrl().toString());
        return new ContractTarget(server.baseUrl(), "provider-admin", "provider-password-" + Names.hex(4));
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
