package org.agentworkspace.core.auth;

import java.time.Clock;

import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.store.Store;

/** The authentication services of one engine, wired together. */
public final class Authentication {
    private final Accounts accounts;
    private final ApiKeys apiKeys;
    private final StreamTickets tickets;
    private final LoginThrottle throttle;

    private Authentication(Accounts accounts, ApiKeys apiKeys, StreamTickets tickets, LoginThrottle throttle) {
        this.accounts = accounts;
        this.apiKeys = apiKeys;
        this.tickets = tickets;
        this.throttle = throttle;
    }

    /** Wires the services over a store. */
    public static Authentication create(Store store, Clock clock, EngineConfig.AuthSettings settings) {
        PasswordHasher hasher = new PasswordHasher(settings.hashingConcurrency());
        Accounts accounts = new Accounts(store, hasher, clock);
        ApiKeys keys = new ApiKeys(store, clock);
        return new Authentication(accounts, keys,
                new StreamTickets(store, accounts, keys, clock, settings.ticketLifetime(),
                        settings.maxOutstandingTickets()),
                new LoginThrottle(store, clock, settings.accountFailureLimit(), settings.clientFailureLimit(),
                        settings.failureWindow()));
    }

    /**
     * True while the principal's account exists and, for a key (or a ticket a key minted), the key is still active.
     * Long-lived streams call this periodically so that revoking a key or deleting a user ends them.
     */
    public boolean stillValid(org.agentworkspace.api.Principal principal) {
        if (accounts.find(principal.user().id()).isEmpty()) {
            return false;
        }
        return principal.apiKeyId() == null || apiKeys.isActive(principal.apiKeyId());
    }

    public Accounts accounts() {
        return accounts;
    }

    public ApiKeys apiKeys() {
        return apiKeys;
    }

    public StreamTickets tickets() {
        return tickets;
    }

    public LoginThrottle throttle() {
        return throttle;
    }
}
