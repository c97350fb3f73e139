package org.agentworkspace.providers.qwen;

import java.util.List;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.ProviderId;
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

    public QwenProvider() {
        super(ProviderId.QWEN.wireId(), "Qwen Code", List.of("qwen"), true);
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
