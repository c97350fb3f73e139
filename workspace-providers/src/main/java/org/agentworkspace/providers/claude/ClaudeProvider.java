package org.agentworkspace.providers.claude;

import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.PermissionMode;
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
import org.agentworkspace.api.provider.ProviderDescriptor.ModelApi;
import org.agentworkspace.api.provider.ProviderDescriptor.Models;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.providers.common.ClaudeShapedParser;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * Claude Code. argv: {@code claude -p --output-format stream-json --verbose [--model=M] [--resume=ID]
 * [--permission-mode=acceptEdits|bypassPermissions] -- PROMPT}. Key and endpoint: {@code ANTHROPIC_API_KEY},
 * {@code ANTHROPIC_BASE_URL}. As root, {@code bypassPermissions} is refused unless {@code IS_SANDBOX=1}, which the
 * plan sets only for that mode and only as root.
 */
public final class ClaudeProvider extends ProviderBase {

    /** Install, key, config files, MCP, models, history and login of Claude Code (docs/providers.md, claude). */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.CLAUDE.wireId(), "Claude Code",
            Install.npm("claude", "@anthropic-ai/claude-code", "2.1.330"),
            new Credentials("ANTHROPIC_API_KEY", true),
            List.of(ConfigFile.of("settings", "Claude Code user settings (settings.json)",
                            Location.home(".claude/settings.json"), FileFormat.JSON),
                    ConfigFile.of("instructions", "User instructions for every project (CLAUDE.md)",
                            Location.home(".claude/CLAUDE.md"), FileFormat.TEXT)),
            new Mcp(McpShape.CLAUDE, Location.home(".claude.json"), List.of("mcpServers"),
                    Location.home(".claude.json"), List.of("projects", "{project}", "mcpServers"), FileFormat.JSON,
                    null),
            Models.of(ModelApi.ANTHROPIC, "https://api.anthropic.com",
                    new Model("sonnet", "Claude Sonnet (latest)", 200_000),
                    new Model("opus", "Claude Opus (latest)", 200_000),
                    new Model("haiku", "Claude Haiku (latest)", 200_000),
                    new Model("sonnet[1m]", "Claude Sonnet, 1M context", 1_000_000),
                    new Model("opusplan", "Opus for planning, Sonnet for edits", 200_000),
                    new Model("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000)),
            HistoryFormat.CLAUDE,
            List.of(LoginCheck.claudeOauth(Location.home(".claude/.credentials.json")),
                    LoginCheck.jsonText(Location.home(".claude.json"), "primaryApiKey"),
                    LoginCheck.jsonText(Location.home(".claude/settings.json"), "env", "ANTHROPIC_API_KEY"),
                    LoginCheck.jsonText(Location.home(".claude/settings.json"), "env", "ANTHROPIC_AUTH_TOKEN"),
                    LoginCheck.jsonText(Location.home(".claude/settings.json"), "env", "CLAUDE_CODE_OAUTH_TOKEN"),
                    LoginCheck.jsonText(Location.home(".claude/settings.json"), "apiKeyHelper")));

    public ClaudeProvider() {
        super(DESCRIPTOR, List.of("claude"), true);
    }

    private static final ObjectMapper JSON = org.agentworkspace.providers.common.Json.mapper();

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        // --verbose: stream-json with --print requires it
        p.args("-p", "--output-format", "stream-json", "--verbose");
        common(spec, ctx, p);
        p.args("--", spec.prompt());
    }

    /**
     * The conversation on stdin for {@code default} mode: {@code --input-format stream-json} (the user turn is a
     * {@code {"type":"user",…}} line) and {@code --permission-prompt-tool stdio}, so a tool that needs approval
     * becomes a {@code control_request} ({@code can_use_tool}) on stdout, answered by a {@code control_response}
     * line on stdin. The CLI ends when stdin is closed after its {@code result}.
     */
    @Override
    protected String buildInteractive(RunSpec spec, LaunchContext ctx, Plan p) {
        if (spec.permissionMode() != PermissionMode.DEFAULT) {
            return null;
        }
        p.args("-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                "--permission-prompt-tool", "stdio");
        common(spec, ctx, p);
        ObjectNode turn = JSON.createObjectNode();
        turn.put("type", "user");
        ObjectNode message = turn.putObject("message");
        message.put("role", "user");
        message.put("content", spec.prompt());
        return turn.toString() + "\n";
    }

    private static void common(RunSpec spec, LaunchContext ctx, Plan p) {
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        if (spec.resumeSessionId() != null) {
            p.option("--resume", spec.resumeSessionId());
        }
        switch (spec.permissionMode()) {
            case DEFAULT -> {
            }
            case ACCEPT_EDITS -> p.option("--permission-mode", "acceptEdits");
            case BYPASS -> {
                p.option("--permission-mode", "bypassPermissions");
                if (ctx.runningAsRoot()) {
                    // claude refuses bypassPermissions as root ("cannot be used with root/sudo privileges") otherwise
                    p.env("IS_SANDBOX", "1");
                }
            }
        }
        if (spec.credentials().hasApiKey()) {
            p.secretEnv("ANTHROPIC_API_KEY", spec.credentials().apiKey());
        }
        if (spec.credentials().hasBaseUrl()) {
            p.env("ANTHROPIC_BASE_URL", spec.credentials().baseUrl());
        }
        // the switch that matters: without it claude looks up api.anthropic.com for non-essential traffic
        p.env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        p.env("DISABLE_TELEMETRY", "1");
        p.env("DISABLE_ERROR_REPORTING", "1");
        p.env("DISABLE_AUTOUPDATER", "1");
        p.env("DISABLE_BUG_COMMAND", "1");
        p.env("CLAUDE_CODE_ENABLE_TELEMETRY", "0");
        p.env("CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL", "1");
    }

    @Override
    public StreamParser newParser() {
        return new ClaudeShapedParser("claude", false);
    }
}
