package org.agentworkspace.core.providers;

import java.util.Map;
import java.util.Optional;

/**
 * The version of each npm-installable CLI the test suite runs against (the real-CLI end-to-end tests through the
 * server, against the testkit's mock LLM), and the day that was last proven. An install through
 * {@code POST /api/providers/{provider}/install} without {@code version} installs exactly this version; a
 * {@code version} (a number or a dist-tag such as {@code latest}) picks another one.
 *
 * <p>The testkit (which depends on no project module) pins the same versions in {@code RealCli.SPECS};
 * {@code TestedVersionsMirrorTest} fails when the two tables differ. docs/provider-management.md §6 shows the table.
 */
public final class TestedVersions {
    /** The day the real-CLI tests last passed with every version below (ISO date). */
    public static final String TESTED_ON = "2026-11-27";

    private static final Map<String, String> VERSIONS = Map.of(
            "claude", "2.1.330",
            "codex", "0.169.0",
            "gemini", "0.61.0",
            "qwen", "0.24.4",
            "opencode", "1.18.33",
            "grok", "0.0.34");

    private TestedVersions() {
    }

    /** The tested version of the provider's CLI, empty for a provider that is not installed from npm (cursor). */
    public static Optional<String> of(String provider) {
        return Optional.ofNullable(VERSIONS.get(provider));
    }

    /** Every provider id with its tested version. */
    public static Map<String, String> all() {
        return VERSIONS;
    }
}
