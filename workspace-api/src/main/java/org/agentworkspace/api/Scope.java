package org.agentworkspace.api;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Least-privilege scopes an API key can carry. A signed-in user (cookie or bearer JWT) holds every scope; an API
 * key holds only those it was created with. docs/auth.md lists which routes need which scope.
 */
public enum Scope {
    /** Read projects, sessions, messages, search, files and git state. */
    PROJECTS_READ("projects:read"),
    /** Change projects, sessions, files and git state (commit, push, pull, checkout). */
    PROJECTS_WRITE("projects:write"),
    /** Read automation status, tasks, runs and their event streams. */
    TASKS_READ("tasks:read"),
    /** Start agent runs ({@code /api/agent}, automation runs) and manage tasks. */
    TASKS_WRITE("tasks:write"),
    /** Read provider status, model catalogs and the masked credential inventory. */
    PROVIDERS_READ("providers:read"),
    /** Run the self-update. */
    SYSTEM_UPDATE("system:update"),
    /** Read the production agent loop (administrator accounts only). */
    ORCHESTRATION_READ("orchestration:read"),
    /** Act on the production agent loop (administrator accounts only). */
    ORCHESTRATION_WRITE("orchestration:write");

    private final String id;

    Scope(String id) {
        this.id = id;
    }

    /** The wire name, for example {@code projects:read}. */
    public String id() {
        return id;
    }

    /** Finds a scope by its wire name. */
    public static Optional<Scope> find(String id) {
        return Arrays.stream(values()).filter(s -> s.id.equals(id)).findFirst();
    }

    /**
     * The scopes a new key receives when its creator names none: the work plane and reading provider status (a run
     * needs an installed, signed-in provider, and the first-run walk checks it with the key), nothing
     * administrative.
     */
    public static Set<Scope> defaults() {
        return EnumSet.of(PROJECTS_READ, PROJECTS_WRITE, TASKS_READ, TASKS_WRITE, PROVIDERS_READ);
    }

    /** Every scope; what an interactive user session holds. */
    public static Set<Scope> all() {
        return EnumSet.allOf(Scope.class);
    }
}
