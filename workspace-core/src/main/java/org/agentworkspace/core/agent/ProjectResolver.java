package org.agentworkspace.core.agent;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds a project's directory by its id ({@code Project.name}) for {@code POST /api/automation/run}. The project
 * registry plugs in here; the default knows no project (every {@code projectId} is 404 {@code PROJECT_NOT_FOUND}).
 */
@FunctionalInterface
public interface ProjectResolver {
    Optional<Path> find(String projectId);

    static ProjectResolver none() {
        return id -> Optional.empty();
    }
}
