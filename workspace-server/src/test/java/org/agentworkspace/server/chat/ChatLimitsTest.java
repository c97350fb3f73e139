package org.agentworkspace.server.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The /ws limits an operator sets through the environment. */
class ChatLimitsTest {
    @Test
    void environmentOverridesTheDefaultsAndRefusesNonsense() {
        ChatLimits d = ChatLimits.defaults();
        assertEquals(d, ChatLimits.fromEnvironment(Map.of()));
        ChatLimits l = ChatLimits.fromEnvironment(Map.of("AW_WS_MAX_CONNECTIONS", "40", "AW_WS_MAX_SUBSCRIPTIONS",
                " 8 ", "AW_WS_MAX_MESSAGES_PER_SECOND", "1000"));
        assertEquals(40, l.maxConnectionsPerUser());
        assertEquals(8, l.maxSubscriptionsPerSocket());
        assertEquals(1000, l.maxMessagesPerSecond());
        assertEquals(d.maxMessageBytes(), l.maxMessageBytes());
        for (String bad : new String[] {"0", "-3", "many", "1.5"}) {
            assertThrows(IllegalArgumentException.class,
                    () -> ChatLimits.fromEnvironment(Map.of("AW_WS_MAX_CONNECTIONS", bad)), bad);
        }
    }
}
