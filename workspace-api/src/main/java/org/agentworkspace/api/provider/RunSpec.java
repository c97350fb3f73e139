package org.agentworkspace.api.provider;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.agentworkspace.api.WorkspaceException;

/**
 * One run of one provider CLI, as the engine asks for it. Validated on construction, so a plan is only ever built
 * from values that cannot become command-line options: the model and the session id must start with a letter or
 * digit, and the prompt is always passed as data ({@code -- PROMPT} or {@code --prompt=PROMPT}).
 *
 * @param prompt the user's prompt (any text, including text that starts with {@code -}); at most
 *     {@link #MAX_PROMPT_BYTES} UTF-8 bytes, because it travels as one command-line argument
 * @param projectDir the absolute working directory of the run
 * @param model the model id, or {@code null} for the CLI's default
 * @param permissionMode what the run may do without asking
 * @param resumeSessionId the CLI's session id to continue, or {@code null} for a new session
 * @param credentials the key and endpoint for this provider ({@link ProviderCredentials#none()} for the CLI's own login)
 * @param extraEnv variables added to the child's environment last (they win over the provider's own)
 */
public record RunSpec(String prompt, Path projectDir, String model, PermissionMode permissionMode,
        String resumeSessionId, ProviderCredentials credentials, Map<String, String> extraEnv) {

    /** Linux limits one argument to 128 KiB; this leaves room for an option prefix such as {@code --prompt=}. */
    public static final int MAX_PROMPT_BYTES = 120_000;
    private static final Pattern MODEL = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/@+\\[\\]-]{0,199}");
    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,199}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    public RunSpec {
        Objects.requireNonNull(prompt, "prompt");
        if (prompt.isBlank()) {
            throw WorkspaceException.Validation.of("prompt must not be blank");
        }
        if (prompt.indexOf('\0') >= 0) {
            throw WorkspaceException.Validation.of("prompt must not contain NUL characters");
        }
        if (prompt.getBytes(StandardCharsets.UTF_8).length > MAX_PROMPT_BYTES) {
            throw WorkspaceException.Validation.of("prompt is longer than " + MAX_PROMPT_BYTES + " bytes");
        }
        Objects.requireNonNull(projectDir, "projectDir");
        if (!projectDir.isAbsolute()) {
            throw WorkspaceException.Validation.of("projectDir must be an absolute path");
        }
        projectDir = projectDir.normalize();
        checkModel(model);
        permissionMode = permissionMode == null ? PermissionMode.DEFAULT : permissionMode;
        if (resumeSessionId != null && !SESSION_ID.matcher(resumeSessionId).matches()) {
            throw WorkspaceException.Validation.of(
                    "session id must be 1-200 characters of letters, digits and ._:- starting with a letter or digit");
        }
        credentials = credentials == null ? ProviderCredentials.none() : credentials;
        TreeMap<String, String> env = new TreeMap<>();
        if (extraEnv != null) {
            extraEnv.forEach((k, v) -> {
                if (k == null || !ENV_NAME.matcher(k).matches()) {
                    throw WorkspaceException.Validation.of("extra environment variable names must match "
                            + ENV_NAME.pattern());
                }
                if (v == null || v.indexOf('\0') >= 0) {
                    throw WorkspaceException.Validation.of("extra environment values must be non-null without NUL");
                }
                env.put(k, v);
            });
        }
        extraEnv = Collections.unmodifiableMap(env);
    }

    /** A builder for a new session with the default permission mode and no credentials. */
    /**
     * Refuses a model id that could not be given to a CLI (one starting with {@code -} would be read as an option):
     * the rule of the {@code model} component, for callers that keep a model before a run is built (tasks).
     *
     * @throws WorkspaceException.Validation the model breaks the rule ({@code null} passes: the CLI's default)
     */
    public static void checkModel(String model) {
        if (model != null && !MODEL.matcher(model).matches()) {
            throw WorkspaceException.Validation.of(
                    "model must be 1-200 characters of letters, digits and ._:/@+[]- starting with a letter or digit");
        }
    }

    public static Builder builder(String prompt, Path projectDir) {
        return new Builder(prompt, projectDir);
    }

    /** Whether this run continues an existing session. */
    public boolean resumes() {
        return resumeSessionId != null;
    }

    @Override
    public String toString() {
        return "RunSpec[projectDir=" + projectDir + ", model=" + model + ", permissionMode=" + permissionMode
                + ", resumeSessionId=" + resumeSessionId + ", credentials=" + credentials + ", extraEnv="
                + extraEnv.keySet() + ", prompt=" + prompt.length() + " chars]";
    }

    /** Builds a {@link RunSpec}; every setter may be skipped. */
    public static final class Builder {
        private final String prompt;
        private final Path projectDir;
        private String model;
        private PermissionMode permissionMode = PermissionMode.DEFAULT;
        private String resumeSessionId;
        private ProviderCredentials credentials = ProviderCredentials.none();
        private final TreeMap<String, String> extraEnv = new TreeMap<>();

        private Builder(String prompt, Path projectDir) {
            this.prompt = prompt;
            this.projectDir = projectDir;
        }

        public Builder model(String model) {
            this.model = model;
            return this;
        }

        public Builder permissionMode(PermissionMode permissionMode) {
            this.permissionMode = permissionMode;
            return this;
        }

        /** Continue this session instead of starting a new one. */
        public Builder resume(String sessionId) {
            this.resumeSessionId = sessionId;
            return this;
        }

        public Builder credentials(ProviderCredentials credentials) {
            this.credentials = credentials;
            return this;
        }

        public Builder extraEnv(String name, String value) {
            this.extraEnv.put(name, value);
            return this;
        }

        public RunSpec build() {
            return new RunSpec(prompt, projectDir, model, permissionMode, resumeSessionId, credentials, extraEnv);
        }
    }
}
