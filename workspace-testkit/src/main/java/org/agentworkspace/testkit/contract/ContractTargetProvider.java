package org.agentworkspace.testkit.contract;

/**
 * Supplies a running service for the contract suite when no URL is configured. Found with {@link java.util.ServiceLoader}
 * (the first provider wins); for example a server module registers one that starts its embedded server on a random
 * port with a temporary data directory and an administrator account.
 *
 * <p>The suite calls {@link #start()} once per JVM and {@link #close()} when the test run ends.
 */
public interface ContractTargetProvider extends AutoCloseable {
    /** Starts (or locates) the service and returns where it is and which account to use. */
    ContractTarget start() throws Exception;

    /**
     * {@code true} when the service runs on this host and sees this host's files, so tests may prepare folders (a
     * git repository with a bare remote, say) with local tools and hand their paths to the service. The default is
     * {@code false}.
     */
    default boolean local() {
        return false;
    }

    /**
     * The directory the service reads coding-agent CLI history from (its {@code --history-home}), when it runs on
     * this host and a test may write sessions there ({@code HistoryContractTest} seeds a small history of its own
     * under unique project paths and removes it again). Empty (the default): those tests are skipped. Only
     * meaningful together with {@link #local()}.
     */
    default java.util.Optional<java.nio.file.Path> historyHome() {
        return java.util.Optional.empty();
    }

    /** Stops what {@link #start()} started; failures are the provider's to report. The default does nothing. */
    @Override
    default void close() {
    }
}
