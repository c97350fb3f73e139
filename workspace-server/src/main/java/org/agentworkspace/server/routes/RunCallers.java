package org.agentworkspace.server.routes;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import io.helidon.http.HeaderNames;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.AgentErrorCodes;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.http.Call;

/**
 * The one rule for a {@code projectPath} that names a run's working directory directly, shared by
 * {@code POST /api/agent} and {@code POST /api/automation/run} (docs/agent-runs.md): only a local trusted caller
 * may name one ({@code PROJECT_PATH_NOT_TRUSTED} otherwise), it must be an absolute, normalised path
 * ({@code INVALID_PROJECT_PATH}), and it must lie where projects may ({@code PATH_NOT_ALLOWED}, docs/auth.md
 * "Project roots").
 */
final class RunCallers {
    private final AgentRunService runs;
    private final ServerConfig config;
    private final ProjectRegistry projects;

    RunCallers(AgentRunService runs, ServerConfig config, ProjectRegistry projects) {
        this.runs = runs;
        this.config = config;
        this.projects = projects;
    }

    /**
     * The checked working directory named by {@code raw}.
     *
     * @param mayBeMissing the folder may not exist yet (a clone target)
     */
    Path projectPath(Call call, String raw, boolean mayBeMissing) {
        if (!trustedLocalCaller(call)) {
            throw new WorkspaceException.Forbidden(AgentErrorCodes.PROJECT_PATH_NOT_TRUSTED,
                    "projectPath is honoured only for local trusted callers; name a registered project instead");
        }
        Path p;
        try {
            p = Path.of(raw);
        } catch (java.nio.file.InvalidPathException e) {
            throw new WorkspaceException.Validation(AgentErrorCodes.INVALID_PROJECT_PATH, "projectPath is not a path");
        }
        if (!p.isAbsolute() || !p.normalize().equals(p)) {
            throw new WorkspaceException.Validation(AgentErrorCodes.INVALID_PROJECT_PATH,
                    "projectPath must be an absolute, normalised path");
        }
        if (mayBeMissing && !Files.exists(p)) {
            projects.checkLocation(p);
            return p;
        }
        if (!Files.isDirectory(p)) {
            throw new WorkspaceException.Validation(AgentErrorCodes.INVALID_PROJECT_PATH,
                    "projectPath must be the absolute path of an existing directory");
        }
        projects.checkLocation(p);
        return p;
    }

    /**
     * A local trusted caller: the operator has not switched {@code --trust-local-project-paths} off, the TCP peer
     * is a loopback address, the peer is not a configured trusted proxy, and the request carries no forwarding
     * header (a reverse proxy on the same host must not turn remote callers into local ones). The caller is already
     * authenticated with {@code tasks:write}.
     */
    boolean trustedLocalCaller(Call call) {
        if (!runs.settings().trustLocalProjectPaths()) {
            return false;
        }
        var headers = call.request().headers();
        for (String h : new String[] {"X-Forwarded-For", "Forwarded", "X-Real-IP", "X-Forwarded-Host",
                "X-Forwarded-Proto", "CF-Connecting-IP"}) {
            if (headers.contains(HeaderNames.create(h))) {
                return false;
            }
        }
        if (!(call.request().remotePeer().address() instanceof InetSocketAddress inet)) {
            return false;
        }
        InetAddress a = inet.getAddress();
        return a != null && a.isLoopbackAddress() && !config.trustedProxies().contains(a.getHostAddress());
    }
}
