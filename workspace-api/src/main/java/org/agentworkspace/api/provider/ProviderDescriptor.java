package org.agentworkspace.api.provider;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Everything the engine and the server know about one provider that is not the launch itself ({@link
 * AgentProvider#plan} is the argv recipe): how it is installed and which version the tests run, which variable
 * carries its key, the config files it reads, where and in which shape it keeps MCP server entries, where its model
 * list comes from, which history format it writes, and where its own login is kept. Every part is required; a part a
 * CLI does not have is said explicitly ({@link Mcp#none}, {@link HistoryFormat#NONE}, {@link ModelApi#NONE}, an
 * empty list). The engine reads providers only through this record: there is no switch on provider ids behind it.
 *
 * @param id           the wire id (the same as {@link AgentProvider#id()})
 * @param displayName  a human-readable name (the same as {@link AgentProvider#displayName()})
 * @param install      how the CLI is installed
 * @param credentials  the key variable and whether an endpoint override is accepted
 * @param configFiles  the config files the config-file routes may read and write, by opaque id; never a credential
 *                     file
 * @param mcp          where and in which shape MCP server entries are written
 * @param models       the model-list endpoint and the built-in catalog
 * @param history      the format of the sessions the CLI keeps (read by the engine's history index)
 * @param logins       where the CLI's own login lives (the status route's {@code cli-login}), checked in order
 */
public record ProviderDescriptor(String id, String displayName, Install install, Credentials credentials,
                                 List<ConfigFile> configFiles, Mcp mcp, Models models, HistoryFormat history,
                                 List<LoginCheck> logins) {

    private static final Pattern FILE_ID = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    private static final Pattern NPM_PACKAGE = Pattern.compile("(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*");

    public ProviderDescriptor {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(install, id + ": install");
        Objects.requireNonNull(credentials, id + ": credentials");
        configFiles = List.copyOf(Objects.requireNonNull(configFiles, id + ": configFiles"));
        Objects.requireNonNull(mcp, id + ": mcp");
        Objects.requireNonNull(models, id + ": models");
        Objects.requireNonNull(history, id + ": history");
        logins = List.copyOf(Objects.requireNonNull(logins, id + ": logins"));
        Set<String> fileIds = new HashSet<>();
        for (ConfigFile f : configFiles) {
            if (!fileIds.add(f.id())) {
                throw new IllegalArgumentException(id + ": two config files with the id " + f.id());
            }
        }
    }

    /** Where a file lies: relative to one of the folders the engine resolves on this machine. */
    public enum Base {
        /** The service's HOME. */
        HOME,
        /** {@code $XDG_CONFIG_HOME}, else {@code ~/.config}. */
        XDG_CONFIG,
        /** {@code $XDG_DATA_HOME}, else {@code ~/.local/share}. */
        XDG_DATA,
        /** The folder the engine keeps for this provider ({@code <dataDir>/providers/<id>}). */
        PROVIDER_DIR,
        /** A registered project's folder (MCP entries of scope {@code local} only). */
        PROJECT
    }

    /**
     * A file below a {@link Base}.
     *
     * @param path a relative path with {@code /} separators and no {@code .} or {@code ..} segment
     */
    public record Location(Base base, String path) {
        public Location {
            Objects.requireNonNull(base, "base");
            Objects.requireNonNull(path, "path");
            if (path.isEmpty() || path.startsWith("/") || path.contains("\\") || path.contains("//")) {
                throw new IllegalArgumentException("a location is a relative path: " + path);
            }
            for (String segment : path.split("/")) {
                if (segment.equals(".") || segment.equals("..")) {
                    throw new IllegalArgumentException("a location never leaves its base: " + path);
                }
            }
        }

        public static Location home(String path) {
            return new Location(Base.HOME, path);
        }

        public static Location xdgConfig(String path) {
            return new Location(Base.XDG_CONFIG, path);
        }

        public static Location xdgData(String path) {
            return new Location(Base.XDG_DATA, path);
        }

        public static Location providerDir(String path) {
            return new Location(Base.PROVIDER_DIR, path);
        }

        public static Location project(String path) {
            return new Location(Base.PROJECT, path);
        }
    }

    /**
     * How the CLI is installed.
     *
     * @param binary             the file name of the binary an install puts into {@code node_modules/.bin}
     * @param npmPackage         the npm package an install job installs, or null when the CLI is not on npm
     * @param testedVersion      the version the real-CLI tests run (an install without a version gets it); null
     *                           exactly when {@code npmPackage} is
     * @param manualHint         how to install it by hand, required when {@code npmPackage} is null
     * @param vendoredExecutables files inside the installed package that npm leaves without the execute bit and
     *                           the install job fixes (relative to the package's folder; the last segment is the
     *                           file name looked for below the folder before it)
     */
    public record Install(String binary, String npmPackage, String testedVersion, String manualHint,
                          List<String> vendoredExecutables) {
        public Install {
            Objects.requireNonNull(binary, "binary");
            vendoredExecutables = List.copyOf(vendoredExecutables);
            if (npmPackage != null) {
                if (!NPM_PACKAGE.matcher(npmPackage).matches()) {
                    throw new IllegalArgumentException("not an npm package name: " + npmPackage);
                }
                Objects.requireNonNull(testedVersion, "an npm package needs its tested version");
            } else {
                Objects.requireNonNull(manualHint, "a CLI that is not on npm needs a manual install hint");
                if (testedVersion != null) {
                    throw new IllegalArgumentException("a tested version belongs to an npm package");
                }
            }
            for (String v : vendoredExecutables) {
                new Location(Base.HOME, v);
            }
        }

        /** Installed from npm. */
        public static Install npm(String binary, String npmPackage, String testedVersion) {
            return new Install(binary, npmPackage, testedVersion, null, List.of());
        }

        /** Not on npm: the operator installs it by hand. */
        public static Install manual(String binary, String hint) {
            return new Install(binary, null, null, hint, List.of());
        }

        public Install withVendoredExecutables(String... paths) {
            return new Install(binary, npmPackage, testedVersion, manualHint, List.of(paths));
        }

        /** Whether an install job can install it. */
        public boolean installable() {
            return npmPackage != null;
        }
    }

    /**
     * The credential a run of this provider gets.
     *
     * @param apiKeyVariable  the one child variable that carries the stored key (the adapter sets it through its
     *                        plan's secret variables)
     * @param baseUrlAllowed  whether the adapter accepts an endpoint override with the key
     */
    public record Credentials(String apiKeyVariable, boolean baseUrlAllowed) {
        public Credentials {
            Objects.requireNonNull(apiKeyVariable, "apiKeyVariable");
            if (!apiKeyVariable.matches("[A-Z][A-Z0-9_]*")) {
                throw new IllegalArgumentException("not a variable name: " + apiKeyVariable);
            }
        }
    }

    /** The format a config file is validated in before a write. */
    public enum FileFormat {
        JSON, JSON_WITH_COMMENTS, TOML, ENV, TEXT
    }

    /**
     * One config file of the config-file routes.
     *
     * @param id        the opaque id a client names ({@code [a-z][a-z0-9-]*})
     * @param label     what the file is, for people
     * @param location  where it is
     * @param format    how a write is validated
     * @param readOnly  written by the service itself before every run; the routes only show it
     */
    public record ConfigFile(String id, String label, Location location, FileFormat format, boolean readOnly) {
        public ConfigFile {
            Objects.requireNonNull(id, "id");
            if (!FILE_ID.matcher(id).matches()) {
                throw new IllegalArgumentException("a config file id is [a-z][a-z0-9-]*: " + id);
            }
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(format, "format");
            if (location.base() == Base.PROJECT) {
                throw new IllegalArgumentException("a config file is not inside a project");
            }
        }

        public static ConfigFile of(String id, String label, Location location, FileFormat format) {
            return new ConfigFile(id, label, location, format, false);
        }
    }

    /** The shape of one MCP server entry in the CLI's file. */
    public enum McpShape {
        /** The CLI reads no MCP entries this service can write. */
        NONE,
        /** Claude Code's {@code {type, command, args, env}} / {@code {type, url, headers}}. */
        CLAUDE,
        /** {@code {command, args, env}} / {@code {url|httpUrl, headers}} (cursor, gemini, qwen). */
        PLAIN,
        /** opencode's {@code {type: local|remote, command: [..], environment, url, headers, enabled}}. */
        OPENCODE,
        /** Codex's TOML tables {@code [mcp_servers.<name>]}. */
        CODEX
    }

    /**
     * Where MCP server entries are written.
     *
     * @param shape             the entry shape ({@link McpShape#NONE}: not managed here)
     * @param userFile          the file of scope {@code user}
     * @param userContainer     the keys leading to the entries' object in it
     * @param projectFile       the file of scope {@code local} (base {@link Base#PROJECT}, or a shared file)
     * @param projectContainer  the keys in it; {@code {project}} stands for the project folder's absolute path
     * @param format            the file's format
     * @param unsupportedReason why entries are not managed, for {@link McpShape#NONE}
     */
    public record Mcp(McpShape shape, Location userFile, List<String> userContainer, Location projectFile,
                      List<String> projectContainer, FileFormat format, String unsupportedReason) {
        public Mcp {
            Objects.requireNonNull(shape, "shape");
            if (shape == McpShape.NONE) {
                Objects.requireNonNull(unsupportedReason, "unsupportedReason");
            } else {
                Objects.requireNonNull(userFile, "userFile");
                Objects.requireNonNull(projectFile, "projectFile");
                Objects.requireNonNull(format, "format");
                userContainer = List.copyOf(userContainer);
                projectContainer = List.copyOf(projectContainer);
                if (userContainer.isEmpty() || projectContainer.isEmpty()) {
                    throw new IllegalArgumentException("an MCP container names at least one key");
                }
                if (shape == McpShape.CODEX && format != FileFormat.TOML) {
                    throw new IllegalArgumentException("codex-shaped entries are TOML");
                }
            }
        }

        /** Entries in {@code file} (user scope) and {@code projectFile} (local scope), both under {@code key}. */
        public static Mcp of(McpShape shape, Location userFile, Location projectFile, String key, FileFormat f) {
            return new Mcp(shape, userFile, List.of(key), projectFile, List.of(key), f, null);
        }

        /** Not managed by this service, and why. */
        public static Mcp none(String reason) {
            return new Mcp(McpShape.NONE, null, null, null, null, null, reason);
        }

        public boolean supported() {
            return shape != McpShape.NONE;
        }
    }

    /** The model-list endpoint family. */
    public enum ModelApi {
        /** {@code GET <base>/v1/models}, {@code x-api-key}, {@code anthropic-version}. */
        ANTHROPIC,
        /** {@code GET <base>/models} (the base includes {@code /v1}), {@code Authorization: Bearer}. */
        OPENAI,
        /** {@code GET <base>/v1beta/models}, {@code x-goog-api-key}. */
        GEMINI,
        /** No endpoint: the built-in catalog only. */
        NONE
    }

    /** A model of the built-in catalog (the id as the CLI's {@code --model} takes it). */
    public record Model(String id, String name, Integer contextWindow) {
        public Model {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * Where the model list comes from when a key is stored.
     *
     * @param api              the family asked with the key alone
     * @param defaultBaseUrl   its base URL (null only for {@link ModelApi#NONE})
     * @param modelPrefix      put before each listed id so the CLI's {@code --model} takes it (e.g.
     *                         {@code anthropic/})
     * @param apiWithBaseUrl   the family asked when the stored credential names its own endpoint (no prefix)
     * @param builtin          the built-in catalog, shown without a key or when the endpoint fails
     */
    public record Models(ModelApi api, String defaultBaseUrl, String modelPrefix, ModelApi apiWithBaseUrl,
                         List<Model> builtin) {
        public Models {
            Objects.requireNonNull(api, "api");
            Objects.requireNonNull(modelPrefix, "modelPrefix");
            Objects.requireNonNull(apiWithBaseUrl, "apiWithBaseUrl");
            builtin = List.copyOf(builtin);
            if (builtin.isEmpty()) {
                throw new IllegalArgumentException("the built-in model catalog is empty");
            }
            if (api != ModelApi.NONE && defaultBaseUrl == null) {
                throw new IllegalArgumentException("a model API needs its default base URL");
            }
        }

        /** The family's list at {@code defaultBaseUrl}, or at the credential's own endpoint. */
        public static Models of(ModelApi api, String defaultBaseUrl, Model... builtin) {
            return new Models(api, defaultBaseUrl, "", api, List.of(builtin));
        }

        /** The built-in catalog only. */
        public static Models builtinOnly(Model... builtin) {
            return new Models(ModelApi.NONE, null, "", ModelApi.NONE, List.of(builtin));
        }
    }

    /**
     * The session format the CLI writes, read by the engine's history index. A CLI that writes the same files as
     * another names that format (qwen's stream and cursor's are Claude-shaped, their stored sessions are not).
     */
    public enum HistoryFormat {
        /** The CLI keeps no sessions the service can read. */
        NONE, CLAUDE, CODEX, GEMINI, QWEN, CURSOR, OPENCODE
    }

    /** How one place of the CLI's own login is checked. */
    public enum LoginKind {
        /** A non-empty string at {@code fields} in a JSON file. */
        JSON_TEXT,
        /** Claude's {@code claudeAiOauth}: a refresh token, or an access token that has not expired. */
        CLAUDE_OAUTH,
        /** A JSON file holding a non-empty object. */
        NON_EMPTY_JSON_OBJECT,
        /** {@code NAME=value} (or {@code export NAME=value}) for the one name in {@code fields} in an env file. */
        ENV_FILE_VARIABLE,
        /** {@code <binary> status} exits 0 and says "Logged in" (no file; {@code file} is null). */
        STATUS_COMMAND
    }

    /** One place the CLI's own login may be. */
    public record LoginCheck(LoginKind kind, Location file, List<String> fields) {
        public LoginCheck {
            Objects.requireNonNull(kind, "kind");
            fields = List.copyOf(fields);
            if (kind != LoginKind.STATUS_COMMAND) {
                Objects.requireNonNull(file, "file");
            }
            if ((kind == LoginKind.JSON_TEXT || kind == LoginKind.ENV_FILE_VARIABLE) && fields.isEmpty()) {
                throw new IllegalArgumentException(kind + " names the field it checks");
            }
        }

        public static LoginCheck jsonText(Location file, String... fields) {
            return new LoginCheck(LoginKind.JSON_TEXT, file, List.of(fields));
        }

        public static LoginCheck claudeOauth(Location file) {
            return new LoginCheck(LoginKind.CLAUDE_OAUTH, file, List.of());
        }

        public static LoginCheck nonEmptyJsonObject(Location file) {
            return new LoginCheck(LoginKind.NON_EMPTY_JSON_OBJECT, file, List.of());
        }

        public static LoginCheck envFileVariable(Location file, String name) {
            return new LoginCheck(LoginKind.ENV_FILE_VARIABLE, file, List.of(name));
        }

        public static LoginCheck statusCommand() {
            return new LoginCheck(LoginKind.STATUS_COMMAND, null, List.of());
        }
    }
}
