package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.api.provider.RunSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every provider the SPI loads has every part of its descriptor, and the parts agree with its adapter: the engine and
 * the server know a provider only through this descriptor, so a missing or inconsistent part fails here rather than
 * as an exception on the status, install or models route. Runs over whatever {@code ServiceLoader} finds, so a new
 * provider is checked without being named.
 */
class DescriptorCompletenessTest {

    /** Files that hold a CLI's credential: never in the config-file catalog (docs/provider-management.md). */
    private static final Set<String> CREDENTIAL_FILES = Set.of("auth.json", ".credentials.json", "oauth_creds.json");

    static Stream<AgentProvider> providers() {
        List<AgentProvider> all = AgentProviders.load().all();
        assertFalse(all.isEmpty(), "the SPI finds the providers");
        return all.stream();
    }

    @ParameterizedTest
    @MethodSource("providers")
    void theDescriptorIsTheAdaptersOwn(AgentProvider p) {
        ProviderDescriptor d = p.descriptor();
        assertNotNull(d, p.id());
        assertEquals(p.id(), d.id());
        assertEquals(p.displayName(), d.displayName());
        assertFalse(d.displayName().isBlank(), p.id());
    }

    @ParameterizedTest
    @MethodSource("providers")
    void installNamesAPackageAndItsTestedVersionOrSaysHowToInstallByHand(AgentProvider p) {
        ProviderDescriptor.Install i = p.descriptor().install();
        assertTrue(p.binaryNames().contains(i.binary()), p.id() + " installs one of its binaries");
        if (i.installable()) {
            assertTrue(i.testedVersion().matches("[0-9]+\\.[0-9]+\\.[0-9]+"), p.id() + ": " + i.testedVersion());
        } else {
            assertFalse(i.manualHint().isBlank(), p.id());
        }
    }

    @ParameterizedTest
    @MethodSource("providers")
    void theKeyGoesIntoTheDescribedVariableOnlyAndIsSecret(AgentProvider p) {
        ProviderDescriptor.Credentials c = p.descriptor().credentials();
        String key = "key-of-" + p.id() + "-0123456789";
        String baseUrl = c.baseUrlAllowed() ? "http://127.0.0.1:9/" + p.id() : null;
        RunSpec spec = Plans.spec("hi").model("some-model").credentials(new ProviderCredentials(key, baseUrl)).build();
        LaunchPlan plan = p.plan(spec, Plans.BIN_DIR.resolve(p.descriptor().install().binary()), Plans.CTX);
        assertEquals(key, plan.env().get(c.apiKeyVariable()), p.id() + " carries the key in " + c.apiKeyVariable());
        assertTrue(plan.secretEnv().contains(c.apiKeyVariable()), p.id() + ": the key variable is secret");
        for (Map.Entry<String, String> e : plan.env().entrySet()) {
            if (!e.getKey().equals(c.apiKeyVariable())) {
                assertFalse(e.getValue().contains(key), p.id() + " copies the key into " + e.getKey());
            }
        }
        assertFalse(plan.argv().toString().contains(key), p.id() + ": the key is never an argument");
        assertFalse(plan.files().toString().contains(key), p.id() + ": the key is never in a file");
    }

    @ParameterizedTest
    @MethodSource("providers")
    void configFilesExistAndNoneIsACredentialFile(AgentProvider p) {
        List<ProviderDescriptor.ConfigFile> files = p.descriptor().configFiles();
        assertFalse(files.isEmpty(), p.id() + " lists the config files its CLI reads");
        for (ProviderDescriptor.ConfigFile f : files) {
            String name = f.location().path().substring(f.location().path().lastIndexOf('/') + 1);
            assertFalse(CREDENTIAL_FILES.contains(name), p.id() + " exposes a credential file: " + f.location());
            assertFalse(f.label().isBlank(), p.id() + "/" + f.id());
        }
    }

    @ParameterizedTest
    @MethodSource("providers")
    void mcpIsDescribedOrItsAbsenceExplained(AgentProvider p) {
        ProviderDescriptor.Mcp m = p.descriptor().mcp();
        if (m.supported()) {
            assertTrue(m.projectFile().base() == ProviderDescriptor.Base.PROJECT
                            || m.projectContainer().contains("{project}"),
                    p.id() + ": a local entry lies in the project or is keyed by it");
        } else {
            assertFalse(m.unsupportedReason().isBlank(), p.id());
        }
    }

    @ParameterizedTest
    @MethodSource("providers")
    void modelsHaveABuiltinCatalogAndAnHttpsEndpoint(AgentProvider p) {
        ProviderDescriptor.Models m = p.descriptor().models();
        assertFalse(m.builtin().isEmpty(), p.id());
        if (m.api() != ProviderDescriptor.ModelApi.NONE) {
            assertTrue(m.defaultBaseUrl().startsWith("https://"), p.id() + ": " + m.defaultBaseUrl());
        }
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aCliWithSessionsHasAHistoryFormatAndALogin(AgentProvider p) {
        ProviderDescriptor d = p.descriptor();
        assertEquals(p.supportsResume(), d.history() != ProviderDescriptor.HistoryFormat.NONE,
                p.id() + ": sessions to resume are sessions in a history the index reads");
        assertFalse(d.logins().isEmpty(), p.id() + " says where its own login is");
    }
}
