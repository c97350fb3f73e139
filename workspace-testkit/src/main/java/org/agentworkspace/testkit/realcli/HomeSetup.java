package org.agentworkspace.testkit.realcli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Per-CLI config files and environment variables (cli-e2e.md section 5, re-proved here): base URL and key for the
 * mock, telemetry, update checks and background downloads off.
 */
final class HomeSetup {

    private HomeSetup() {
    }

    static void write(RealCli.Spec spec, Path home, String baseUrl, String apiKey, Map<String, String> env)
            throws IOException {
        switch (spec.id()) {
            case "claude" -> {
                env.put("ANTHROPIC_BASE_URL", baseUrl);
                env.put("ANTHROPIC_API_KEY", apiKey);
                // the one that matters: without it claude looks up api.anthropic.com
                env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
                env.put("DISABLE_TELEMETRY", "1");
                env.put("DISABLE_ERROR_REPORTING", "1");
                env.put("DISABLE_AUTOUPDATER", "1");
                env.put("DISABLE_BUG_COMMAND", "1");
                env.put("CLAUDE_CODE_ENABLE_TELEMETRY", "0");
                env.put("CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL", "1");
                // 401/5xx are retried ~10x with backoff by default
                env.put("CLAUDE_CODE_MAX_RETRIES", "1");
                // lets --permission-mode bypassPermissions work when the tests run as root
                env.put("IS_SANDBOX", "1");
            }
            case "codex" -> {
                Path codexHome = home.resolve(".codex");
                Files.createDirectories(codexHome);
                env.put("CODEX_HOME", codexHome.toString());
                env.put("OPENAI_API_KEY", apiKey);
                Files.writeString(codexHome.resolve("config.toml"), """
                        model = "gpt-5.5"
                        model_provider = "mock"
                        approval_policy = "never"
                        sandbox_mode = "workspace-write"
                        check_for_update_on_startup = false

                        [model_providers.mock]
                        name = "mock"
                        base_url = "%s/v1"
                        wire_api = "responses"
                        env_key = "OPENAI_API_KEY"

                        [features]
                        plugins = false

                        [analytics]
                        enabled = false

                        [feedback]
                        enabled = false

                        [otel]
                        exporter = "none"
                        """.formatted(baseUrl));
            }
            case "gemini" -> {
                Path dir = home.resolve(".gemini");
                Files.createDirectories(dir);
                env.put("GEMINI_API_KEY", apiKey);
                env.put("GOOGLE_GEMINI_BASE_URL", baseUrl);
                env.put("GEMINI_TELEMETRY_ENABLED", "false");
                env.put("GEMINI_CLI_TRUST_WORKSPACE", "true");
                env.put("GEMINI_CLI_NO_RELAUNCH", "true");
                // selectedType: a custom base URL alone fails with "Invalid auth method selected." (rc 41);
                // usageStatisticsEnabled=false is the only switch that stops the upload to play.googleapis.com
                Files.writeString(dir.resolve("settings.json"), """
                        {
                          "security": {"auth": {"selectedType": "gemini-api-key"}},
                          "privacy": {"usageStatisticsEnabled": false},
                          "telemetry": {"enabled": false},
                          "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
                        }
                        """);
            }
            case "qwen" -> {
                Path dir = home.resolve(".qwen");
                Files.createDirectories(dir);
                env.put("OPENAI_API_KEY", apiKey);
                env.put("OPENAI_BASE_URL", baseUrl + "/v1");
                env.put("QWEN_USAGE_STATISTICS_ENABLED", "false");
                env.put("QWEN_TELEMETRY_ENABLED", "false");
                env.put("QWEN_CODE_DISABLE_PRECONNECT", "1");
                env.put("QWEN_CODE_NO_RELAUNCH", "1");
                env.put("QWEN_DISABLE_AUTO_TITLE", "1");
                env.put("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
                Files.writeString(dir.resolve("settings.json"), """
                        {
                          "security": {"auth": {"selectedType": "openai"}},
                          "privacy": {"usageStatisticsEnabled": false},
                          "telemetry": {"enabled": false},
                          "general": {"enableAutoUpdate": false},
                          "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false}
                        }
                        """);
            }
            case "opencode" -> {
                Path dir = home.resolve(".config/opencode");
                Files.createDirectories(dir);
                env.put("AW_LLM_API_KEY", apiKey);
                env.put("OPENCODE_DISABLE_MODELS_FETCH", "1");
                env.put("OPENCODE_DISABLE_AUTOUPDATE", "1");
                env.put("OPENCODE_DISABLE_SHARE", "1");
                env.put("OPENCODE_DISABLE_LSP_DOWNLOAD", "1");
                env.put("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1");
                env.put("OPENCODE_DISABLE_CLAUDE_CODE", "1");
                env.put("OPENCODE_DISABLE_EXTERNAL_SKILLS", "1");
                Files.writeString(dir.resolve("opencode.json"), """
                        {
                          "$schema": "https://opencode.ai/config.json",
                          "autoupdate": false,
                          "share": "disabled",
                          "model": "mock/mock-model",
                          "small_model": "mock/mock-model",
                          "provider": {
                            "mock": {
                              "npm": "@ai-sdk/openai-compatible",
                              "name": "Mock",
                              "options": {"baseURL": "%s/v1", "apiKey": "{env:AW_LLM_API_KEY}"},
                              "models": {"mock-model": {"name": "Mock model"}}
                            }
                          }
                        }
                        """.formatted(baseUrl));
                // on a fresh HOME opencode npm-installs @opencode-ai/plugin into ~/.config/opencode in the
                // background (from the internet): pre-seed it from the cache so it does not
                Path plugin = RealCli.cacheDir().resolve("opencode-plugin-" + spec.version());
                for (String f : new String[] {"package.json", "package-lock.json"}) {
                    if (Files.exists(plugin.resolve(f))) {
                        Files.copy(plugin.resolve(f), dir.resolve(f),
                                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                if (!Files.exists(dir.resolve("node_modules"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(dir.resolve("node_modules"), plugin.resolve("node_modules"));
                }
            }
            case "grok" -> {
                env.put("GROK_API_KEY", apiKey);
                env.put("GROK_BASE_URL", baseUrl + "/v1");
            }
            default -> throw new IllegalArgumentException("no recipe for " + spec.id());
        }
    }
}
