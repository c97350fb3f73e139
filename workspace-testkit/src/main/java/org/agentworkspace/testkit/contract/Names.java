package org.agentworkspace.testkit.contract;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** Unique names for what contract tests create, recognisable by their prefix. */
final class Names {
    private Names() {
    }

    /** {@code contract-<label>-<8 hex>}. */
    static String unique(String label) {
        return "contract-" + label + "-" + hex(4);
    }

    /**
     * A folder path the service can create on its own host for a test project: {@code /tmp/aw-contract-<hex>/<label>}.
     * The service's quick-start creates it; the suite deregisters the project afterwards (the empty folder stays).
     */
    static String serverTempFolder(String label) {
        return "/tmp/aw-contract-" + hex(6) + "/" + label;
    }

    /** Random lowercase hex of {@code bytes * 2} characters. */
    static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
