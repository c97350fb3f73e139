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

    /** Random lowercase hex of {@code bytes * 2} characters. */
    static String hex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
