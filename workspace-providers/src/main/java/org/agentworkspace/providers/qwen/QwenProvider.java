package org.agentworkspace.providers.qwen;

import java.util.List;
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
import org.agentworkspace.api.provider.ProviderDescriptor.ModelApi;
import org.agentworkspace.api.provider.ProviderDescriptor.Models;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.providers.common.ClaudeShapedParser;
import org.agentworkspace.providers.common.ProviderBase;

/**
 * Qwen Code. argv: {@code qwen -o stream-json [--auth-type=openai] [--model=M] [--resume=ID]
 * [--approval-mode=auto-edit|yolo] --prompt=PROMPT} (qwen ignores a positional prompt after {@code --}, so the
 * {@code =} form keeps it data). Key and endpoint: {@code OPENAI_API_KEY}, {@code OPENAI_BASE_URL} with
 * {@code --auth-type=openai}. Usage statistics, telemetry, auto-update and the extra "managed auto-memory" model call
 * are switched off through a system settings file under {@code <dataDir>/providers/qwen/}.
 */
public final class QwenProvider extends ProviderBase {

    static final String SETTINGS = """
            {
              "privacy": {"usageStatisticsEnabled": false},
              "telemetry": {"enabled": false},
              "general": {"enableAutoUpdate": false},
              "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false}
            }
            """;

    /** Install, key, config files, MCP, models, history and login of Qwen Code (docs/providers.md, qwen). */
    static final ProviderDescriptor DESCRIPTOR = new ProviderDescriptor(ProviderId.QWEN.wireId(), "Qwen Code",
            // npm leaves the vendored ripgrep without its execute bit
            Install.npm("qwen", "@qwen-code/qwen-code", "0.24.4").withVendoredExecutables("vendor/ripgrep/rg"),
            new Credentials("OPENAI_API_KEY", true),
            List.of(ConfigFile.of("settings", "Qwen Code user settings (settings.json)",
                            Location.home(".qwen/settings.json"), FileFormat.JSON_WITH_COMMENTS),
                    ConfigFile.of("instructions", "Global context (QWEN.md)",
                            Location.home(".qwen/QWEN.md"), FileFormat.TEXT),
                    ConfigFile.of("env", "Environment file (.env)", Location.home(".qwen/.env"), FileFormat.ENV),
                    new ConfigFile("system-settings", "System settings written by Agent Workspace before every run "
                            + "(read-only: overrides the user settings)",
                            Location.providerDir("system-settings.json"), FileFormat.JSON_WITH_COMMENTS, true)),
            Mcp.of(McpShape.PLAIN, Location.home(".qwen/settings.json"), Location.project(".qwen/settings.json"),
                    "mcpServers", FileFormat.JSON_WITH_COMMENTS),
            Models.of(ModelApi.OPENAI, "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
                    new Model("qwen3-coder-plus", "Qwen3 Coder Plus", 1_000_000),
                    new Model("qwen3-coder-flash", "Qwen3 Coder Flash", 1_000_000),
                    new Model("qwen3-max", "Qwen3 Max", 262_144),
                    new Model("qwen3.5-plus", "Qwen3.5 Plus", 1_000_000)),
            HistoryFormat.QWEN,
            List.of(LoginCheck.jsonText(Location.home(".qwen/oauth_creds.json"), "refresh_token"),
                    LoginCheck.jsonText(Location.home(".qwen/oauth_creds.json"), "access_token"),
                    LoginCheck.jsonText(Location.home(".qwen/settings.json"), "security", "auth", "apiKey"),
                    LoginCheck.envFileVariable(Location.home(".qwen/.env"), "OPENAI_API_KEY")));

    public QwenProvider() {
        super(DESCRIPTOR, List.of("qwen"), true);
    }

    @Override
    protected void build(RunSpec spec, LaunchContext ctx, Plan p) {
        p.args("-o", "stream-json");
        if (spec.credentials().hasApiKey()) {
            p.option("--auth-type", "openai");
            p.secretEnv("OPENAI_API_KEY", spec.credentials().apiKey());
        }
        if (spec.credentials().hasBaseUrl()) {
            p.env("OPENAI_BASE_URL", spec.credentials().baseUrl());
        }
        if (spec.model() != null) {
            p.option("--model", spec.model());
        }
        if (spec.resumeSessionId() != null) {
            p.option("--resume", spec.resumeSessionId());
        }
        switch (spec.permissionMode()) {
            case DEFAULT -> {
                // headless default mode does not even offer write_file, edit or run_shell_command to the model
            }
            case ACCEPT_EDITS -> p.option("--approval-mode", "auto-edit");
            case BYPASS -> {
                p.option("--approval-mode", "yolo");
                p.env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
            }
        }
        p.option("--prompt", spec.prompt());
        java.nio.file.Path settings = ctx.providerDir(id()).resolve("system-settings.json");
        p.file(settings, SETTINGS);
        p.env("QWEN_CODE_SYSTEM_SETTINGS_PATH", settings.toString());
        // without it qwen looks up an aliyuncs.com RUM endpoint
        p.env("QWEN_USAGE_STATISTICS_ENABLED", "false");
        p.env("QWEN_TELEMETRY_ENABLED", "false");
        p.env("QWEN_CODE_DISABLE_PRECONNECT", "1");
        p.env("QWEN_CODE_NO_RELAUNCH", "1");
        p.env("QWEN_DISABLE_AUTO_TITLE", "1");
    }

    @Override
    public StreamParser newParser() {
        // qwen's result reports the whole session's tokens on a resumed run: sum this run's messages instead
        return new ClaudeShapedParser("qwen", true);
    }
}
