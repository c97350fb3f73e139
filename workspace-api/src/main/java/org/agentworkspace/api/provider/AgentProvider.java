package org.agentworkspace.api.provider;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One coding-agent CLI: where its binary is, how to launch it headless, and how to read its output. Implementations
 * are stateless and thread-safe; they never start processes themselves (the engine's launcher runs the
 * {@link LaunchPlan}).
 */
public interface AgentProvider {

    /** The wire id, e.g. {@code "claude"} ({@code [a-z][a-z0-9-]*}); unique among the loaded providers. */
    String id();

    /** A human-readable name, e.g. {@code "Claude Code"}. */
    String displayName();

    /** The file names the CLI's binary may have, most preferred first. */
    List<String> binaryNames();

    /** Whether a later run can continue a session this CLI reported ({@link RunSpec#resumeSessionId()}). */
    boolean supportsResume();

    /** Finds the binary (see {@link BinaryLocator} for the order); empty means the provider is unavailable here. */
    default Optional<Path> resolveBinary(BinaryLocator locator) {
        return locator.find(binaryNames());
    }

    /**
     * The headless launch of {@code spec}: argv for a new or resumed session with the model and permission mode, the
     * complete child environment (the context's allow-listed variables, this provider's credential and endpoint
     * variables only, telemetry and auto-update off), and any config files to write first.
     *
     * @param binary the absolute path of the binary (normally from {@link #resolveBinary})
     * @throws org.agentworkspace.api.WorkspaceException.Validation if the spec asks for something this CLI cannot do
     *     (e.g. resuming a CLI without sessions)
     */
    LaunchPlan plan(RunSpec spec, Path binary, LaunchContext ctx);

    /**
     * The launch of {@code spec} as a conversation on stdin that can ask for tool permissions: the CLI reads the
     * user turn ({@link InteractiveLaunch#firstInput()}) and the answers to its permission requests from stdin, one
     * JSON line each. Empty when the CLI has no such mode (the caller uses {@link #plan}). Only
     * {@link PermissionMode#DEFAULT} asks; the other modes are the same as {@link #plan}.
     */
    default Optional<InteractiveLaunch> planInteractive(RunSpec spec, Path binary, LaunchContext ctx) {
        return Optional.empty();
    }

    /** A fresh parser for one run's stdout. */
    StreamParser newParser();

    /**
     * What the engine and the server know about this provider besides the launch: install, credential variable,
     * config files, MCP format, model API, history format, own login ({@link ProviderDescriptor}). Its id and display
     * name are this provider's; {@link AgentProviders} refuses a provider whose descriptor disagrees.
     */
    ProviderDescriptor descriptor();
}
