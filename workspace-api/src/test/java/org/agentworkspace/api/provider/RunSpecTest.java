package org.agentworkspace.api.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.Test;

class RunSpecTest {

    private static final Path PROJECT = Path.of("/srv/projects/demo");

    @Test
    void defaultsAreTheCliDefaultsWithoutCredentials() {
        RunSpec spec = RunSpec.builder("hello", PROJECT).build();
        assertEquals(PermissionMode.DEFAULT, spec.permissionMode());
        assertFalse(spec.credentials().hasApiKey());
        assertFalse(spec.credentials().hasBaseUrl());
        assertNull(spec.model());
        assertFalse(spec.resumes());
        assertEquals(Map.of(), spec.extraEnv());
    }

    @Test
    void aPromptThatLooksLikeAnOptionIsAcceptedAsData() {
        assertEquals("--help -rf /", RunSpec.builder("--help -rf /", PROJECT).build().prompt());
    }

    @Test
    void rejectsValuesThatCouldBecomeOptionsOrBreakArgv() {
        assertValidation(() -> RunSpec.builder("hi", PROJECT).model("--model=evil").build());
        assertValidation(() -> RunSpec.builder("hi", PROJECT).model("-m").build());
        assertValidation(() -> RunSpec.builder("hi", PROJECT).model("gpt 5").build());
        assertValidation(() -> RunSpec.builder("hi", PROJECT).resume("--last").build());
        assertValidation(() -> RunSpec.builder("hi", PROJECT).resume("a/b").build());
        assertValidation(() -> RunSpec.builder("   ", PROJECT).build());
        assertValidation(() -> RunSpec.builder("a\0b", PROJECT).build());
        assertValidation(() -> RunSpec.builder("x".repeat(RunSpec.MAX_PROMPT_BYTES + 1), PROJECT).build());
        assertValidation(() -> RunSpec.builder("hi", Path.of("relative/dir")).build());
        assertValidation(() -> RunSpec.builder("hi", PROJECT).extraEnv("BAD-NAME", "x").build());
        assertValidation(() -> RunSpec.builder("hi", PROJECT).extraEnv("OK", "a\0b").build());
    }

    @Test
    void acceptsRealModelAndSessionIds() {
        for (String model : new String[] {"claude-sonnet-4-5", "sonnet[1m]", "anthropic/claude-opus-4",
                "openrouter/meta-llama/llama-3:free", "gpt-5.5", "qwen3-coder-plus"}) {
            assertEquals(model, RunSpec.builder("hi", PROJECT).model(model).build().model());
        }
        for (String id : new String[] {"f3d74db5-f17d-443d-9fde-8ca8fe2183f1", "ses_dff8c959bffeH8G2724DMFkPS3",
                "01a20073-299c-7660-b602-e6bf63a0b14c"}) {
            assertTrue(RunSpec.builder("hi", PROJECT).resume(id).build().resumes());
        }
    }

    @Test
    void credentialsNeverShowTheKey() {
        ProviderCredentials c = new ProviderCredentials("sk-very-secret", "https://api.example.com/v1");
        assertFalse(c.toString().contains("sk-very-secret"), c.toString());
        RunSpec spec = RunSpec.builder("hi", PROJECT).credentials(c).build();
        assertFalse(spec.toString().contains("sk-very-secret"), spec.toString());
    }

    @Test
    void baseUrlMustBeAPlainHttpUrl() {
        assertEquals("http://127.0.0.1:8787/v1", new ProviderCredentials(null, "http://127.0.0.1:8787/v1").baseUrl());
        assertValidation(() -> new ProviderCredentials(null, "ftp://example.com"));
        assertValidation(() -> new ProviderCredentials(null, "https://example.com/v1\" -c x=\"y"));
        assertValidation(() -> new ProviderCredentials(null, "https://example.com/v1?x=1"));
        assertValidation(() -> new ProviderCredentials(null, "/v1"));
        assertValidation(() -> new ProviderCredentials(" ", null));
        assertValidation(() -> new ProviderCredentials("key\nINJECTED=1", null));
    }

    @Test
    void permissionModesHaveTheUiWireIds() {
        assertEquals(PermissionMode.BYPASS, PermissionMode.find("bypassPermissions").orElseThrow());
        assertEquals(PermissionMode.ACCEPT_EDITS, PermissionMode.find("acceptEdits").orElseThrow());
        assertTrue(PermissionMode.find("plan").isEmpty());
        assertEquals(ProviderId.GROK, ProviderId.find("grok").orElseThrow());
        assertTrue(ProviderId.find("Claude").isEmpty());
    }

    private static void assertValidation(org.junit.jupiter.api.function.Executable e) {
        WorkspaceException.Validation v = assertThrows(WorkspaceException.Validation.class, e);
        assertEquals(ErrorCodes.VALIDATION_FAILED, v.code());
    }
}
