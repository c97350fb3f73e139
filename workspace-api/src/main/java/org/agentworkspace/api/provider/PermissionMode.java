package org.agentworkspace.api.provider;

import java.util.Optional;

/**
 * How much a run may do without asking. Runs are non-interactive: nobody can answer an approval prompt, so whatever
 * a mode does not allow is refused by the CLI (or, for CLIs that never ask, allowed anyway; docs/providers.md lists
 * each CLI's mapping).
 */
public enum PermissionMode {
    /** The CLI's own default, unchanged: tools that would need approval are refused in headless mode. */
    DEFAULT("default"),
    /** File edits inside the project are allowed without asking; other risky tools keep the CLI's default. */
    ACCEPT_EDITS("acceptEdits"),
    /** Non-interactive full permission: every tool runs without asking (the CLI's "yolo"/bypass mode). */
    BYPASS("bypassPermissions");

    private final String wireId;

    PermissionMode(String wireId) {
        this.wireId = wireId;
    }

    /** The UI vocabulary value: {@code default}, {@code acceptEdits}, {@code bypassPermissions}. */
    public String wireId() {
        return wireId;
    }

    /** The mode with this wire id; empty for anything else (including {@code plan}, which is not supported). */
    public static Optional<PermissionMode> find(String wireId) {
        for (PermissionMode m : values()) {
            if (m.wireId.equals(wireId)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }
}
