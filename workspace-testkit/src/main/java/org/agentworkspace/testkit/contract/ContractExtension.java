package org.agentworkspace.testkit.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Function;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension of the contract suite: resolves the target once per test run and injects {@link ContractClient},
 * {@link ContractTarget} and {@link OpenApiContract} parameters.
 *
 * <p>Target resolution: the configuration parameters (or system properties) {@value #BASE_URL}, {@value #USERNAME}
 * and {@value #PASSWORD} (or the environment variable {@value #PASSWORD_ENV}) win; otherwise the first
 * {@link ContractTargetProvider} found by {@link ServiceLoader} is started. When the target still needs setup, the
 * account is registered first.
 */
public final class ContractExtension implements ParameterResolver {
    /** The base URL of the service under test. */
    public static final String BASE_URL = "aw.contract.baseUrl";
    /** The username of the account the suite uses. */
    public static final String USERNAME = "aw.contract.username";
    /** The password of that account (prefer {@value #PASSWORD_ENV}). */
    public static final String PASSWORD = "aw.contract.password";
    /** Environment variable holding the password. */
    public static final String PASSWORD_ENV = "AW_CONTRACT_PASSWORD";
    /**
     * {@code true} when the configured service runs on this host and shares its filesystem (a provider says so
     * itself through {@link ContractTargetProvider#local()}).
     */
    public static final String LOCAL = "aw.contract.local";
    /**
     * Environment variable holding the target's one-time setup token (the file {@code setup-token} in its data
     * directory): needed only when the suite registers the first account of a fresh service from another machine.
     */
    public static final String SETUP_TOKEN_ENV = "AW_CONTRACT_SETUP_TOKEN";
    /** The service's history home on this host (with {@value #LOCAL}); a provider gives it itself. */
    public static final String HISTORY_HOME = "aw.contract.historyHome";
    /** {@code true}: the suite may run a real self-update of the service ({@code SystemContractTest}). */
    public static final String ALLOW_UPDATE = "aw.contract.allowUpdate";
    /** {@code true}: the suite may restart the service ({@code SystemContractTest}). */
    public static final String ALLOW_RESTART = "aw.contract.allowRestart";

    private static final System.Logger LOG = System.getLogger(ContractExtension.class.getName());
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ContractExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == ContractClient.class || type == ContractTarget.class || type == OpenApiContract.class
                || type == ContractHost.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Environment environment = environment(context);
        ContractClient client = environment.client();
        Class<?> type = parameter.getParameter().getType();
        if (type == ContractHost.class) {
            return new ContractHost(environment.local(), environment.historyHome(), environment.optIns());
        }
        if (type == ContractTarget.class) {
            return client.target();
        }
        if (type == OpenApiContract.class) {
            return client.contract();
        }
        return client;
    }

    private static Environment environment(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).computeIfAbsent(Environment.class.getName(),
                key -> Environment.start(context::getConfigurationParameter, System.getenv()), Environment.class);
    }

    /**
     * Resolves the target from configuration (see the class comment) without starting a provider.
     *
     * @param config configuration lookup, for example JUnit configuration parameters
     * @param env the process environment
     * @return the configured target, or empty when no base URL is configured
     */
    public static Optional<ContractTarget> configuredTarget(Function<String, Optional<String>> config,
                                                            Map<String, String> env) {
        Optional<String> baseUrl = config.apply(BASE_URL).filter(s -> !s.isBlank());
        if (baseUrl.isEmpty()) {
            return Optional.empty();
        }
        String username = config.apply(USERNAME).filter(s -> !s.isBlank()).orElseThrow(() ->
                new ExtensionConfigurationException(BASE_URL + " is set but " + USERNAME + " is not"));
        String password = config.apply(PASSWORD).filter(s -> !s.isEmpty())
                .or(() -> Optional.ofNullable(env.get(PASSWORD_ENV)).filter(s -> !s.isEmpty()))
                .orElseThrow(() -> new ExtensionConfigurationException(BASE_URL + " is set but neither "
                        + PASSWORD + " nor the environment variable " + PASSWORD_ENV + " holds a password"));
        return Optional.of(ContractTarget.of(baseUrl.get(), username, password));
    }

    /** The resolved target and its client; closes the provider at the end of the run. */
    private record Environment(ContractClient client, ContractTargetProvider provider, boolean local,
                               java.nio.file.Path historyHome, java.util.Set<String> optIns)
            implements AutoCloseable {
        static Environment start(Function<String, Optional<String>> config, Map<String, String> env) {
            Optional<ContractTarget> configured = configuredTarget(config, env);
            ContractTargetProvider provider = null;
            ContractTarget target;
            if (configured.isPresent()) {
                target = configured.get();
                LOG.log(Level.INFO, "contract target from configuration: {0}", target.baseUrl());
            } else {
                provider = ServiceLoader.load(ContractTargetProvider.class).findFirst().orElseThrow(() ->
                        new ExtensionConfigurationException("no contract target: set " + BASE_URL + ", " + USERNAME
                                + " and " + PASSWORD_ENV + ", or register a " + ContractTargetProvider.class.getName()));
                try {
                    target = provider.start();
                } catch (Exception e) {
                    throw new ExtensionConfigurationException("contract target provider "
                            + provider.getClass().getName() + " failed to start", e);
                }
                LOG.log(Level.INFO, "contract target from {0}: {1}", provider.getClass().getName(), target.baseUrl());
            }
            ContractClient client = ContractClient.create(target);
            setUpIfNeeded(client, env.get(SETUP_TOKEN_ENV));
            boolean local = provider != null ? provider.local()
                    : config.apply(LOCAL).map(v -> v.strip().equalsIgnoreCase("true")).orElse(false);
            java.nio.file.Path historyHome = provider != null ? provider.historyHome().orElse(null)
                    : config.apply(HISTORY_HOME).filter(v -> !v.isBlank()).map(java.nio.file.Path::of).orElse(null);
            // changing the service itself is never implied: only the operator's explicit settings allow it
            java.util.Set<String> optIns = new java.util.HashSet<>();
            if (config.apply(ALLOW_UPDATE).map(v -> v.strip().equalsIgnoreCase("true")).orElse(false)) {
                optIns.add(ContractHost.UPDATE);
            }
            if (config.apply(ALLOW_RESTART).map(v -> v.strip().equalsIgnoreCase("true")).orElse(false)) {
                optIns.add(ContractHost.RESTART);
            }
            return new Environment(client, provider, local, historyHome, optIns);
        }

        private static void setUpIfNeeded(ContractClient client, String setupToken) {
            JsonNode status = client.get("/api/auth/status").send().expectStatus(200).json();
            if (status.path("needsSetup").asBoolean(false)) {
                LOG.log(Level.INFO, "target needs setup: registering {0}", client.target().username());
                ContractClient.Request register = client.post("/api/auth/register")
                        .json(ContractClient.body("username", client.target().username(),
                                "password", client.target().password()));
                if (setupToken != null && !setupToken.isBlank()) {
                    register.header("X-Setup-Token", setupToken.strip());
                }
                register.send().expectStatus(200);
            }
        }

        @Override
        public void close() {
            if (provider != null) {
                provider.close();
            }
        }
    }
}
