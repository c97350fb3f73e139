package org.agentworkspace.providers.cursor;

import java.util.List;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.api.provider.ProviderDescriptor.ConfigFile;
import org.agentworkspace.api.provider.ProviderDescriptor.Credentials;
import org.agentworkspace.api.provider.ProviderDescriptor.FileFormat;
import org.agentworkspace.api.provider.ProviderDescriptor.HistoryFormat;
import org.agentworkspace.api.provider.ProviderDescriptor.Install;
import org.agentworkspace.api.provider.ProviderDescriptor.Location;
import org.agentworkspace.api.provider.ProviderDescriptor.LoginCheck;
import org.agentworkspace.api.provider.ProviderDescriptor.Mcp;
import org.agentworkspace.api.provider.ProviderDescriptor.McpShape;
import org.agentworkspace.api.provider.ProviderDescriptor.Model;
import org.agentworkspace.api.provider.ProviderDescriptor.Models;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * Cursor's agent CLI. argv: {@code cursor-agent -p --output-format stream-json [--model=M] [--resume=ID] [--force]
 * --trust -- PROMPT}. Key: {@code CURSOR_API_KEY}; there is no endpoint override, so a base URL is refused rather than
 * silently ignored. {@code --trust} answers the workspace-trust question that otherwise stops a headless run.
 * cursor-agent is not published on npm, so this adapter is checked only against the fake CLI.
 */
public final class CursorProvider extends ProviderBase {

    /** Install, key, config files, MCP, models, history and login of Cursor's agent (docs/providers.md, cursor). */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.CURSOR.wireId(), "Cursor Agent",
            Install.manual("cursor-agent", "cursor-agent is not published on npm; install it with Cursor's installer "
                    + "(curl https://cursor.com/install -fsS | bash) as the service user, or point "
                    + "AW_CURSOR_PATH at the binary"),
            new Credentials("CURSOR_API_KEY", false),
            List.of(ConfigFile.of("cli-config", "Cursor agent configuration (cli-config.json)",
                    Location.home(".cursor/cli-config.json"), FileFormat.JSON)),
            Mcp.of(McpShape.PLAIN, Location.home(".cursor/mcp.json"), Location.project(".cursor/mcp.json"),
                    "mcpServers", FileFormat.JSON),
            Models.builtinOnly(
                    new Model("auto", "Auto", null),
                    new Model("composer-2.5", "Composer 2.5", null),
                    new Model("gpt-5.4", "GPT-5.4", null),
                    new Model("claude-4.5-sonnet", "Claude 4.5 Sonnet", null),
                    new Model("gemini-3.1-pro", "Gemini 3.1 Pro", null)),
            HistoryFormat.CURSOR,
            List.of(LoginCheck.statusCommand()));

    public CursorProvider() {
        super(DESCRIPTOR, List.of("cursor-agent"), true);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        if (spec.credentials().hasBaseUrl()) {
            throw WorkspaceException.Validation.of("Cursor does not support a custom base URL");
        }
        p.args("-p", "--output-format", "stream-json");
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        if (spec.resumeSessionId() != null) {
            p.option("--resume", spec.resumeSessionId());
        }
        switch (spec.permissionMode()) {
            case DEFAULT -> {
            }
            // cursor-agent has one switch: --force allows edits and commands unless explicitly denied
            case ACCEPT_EDITS, BYPASS -> p.args("--force");
        }
        p.args("--trust");
        p.args("--", spec.prompt());
        if (spec.credentials().hasApiKey()) {
            p.secretEnv("CURSOR_API_KEY", spec.credentials().apiKey());
        }
    }

    @Override
    public StreamParser newParser() {
        return new CursorStreamParser();
    }
}
