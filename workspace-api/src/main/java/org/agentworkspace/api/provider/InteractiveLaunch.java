package org.agentworkspace.api.provider;

import java.util.Objects;

/**
 * A launch whose stdin stays open (see {@link AgentProvider#planInteractive}).
 *
 * @param plan       the process; its {@link LaunchPlan#stdinNull()} is false
 * @param firstInput what to write to stdin first (the user turn, with its newline)
 */
public record InteractiveLaunch(LaunchPlan plan, String firstInput) {
    public InteractiveLaunch {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(firstInput, "firstInput");
    }
}
