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

    /** Stops what {@link #start()} started; failures are the provider's to report. The default does nothing. */
    @Override
    default void close() {
    }
}
