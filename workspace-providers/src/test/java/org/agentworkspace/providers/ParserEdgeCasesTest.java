package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.agentworkspace.api.provider.StreamParser;
import org.junit.jupiter.api.Test;

/** Lines no recording contains: garbage, missing results, failing tools, misuse of the parser. */
class ParserEdgeCasesTest {

    private static String events(String provider, int exit, String... lines) {
        return EventLines.format(Plans.provider(provider).newParser().parseAll(List.of(lines), exit));
    }

    @Test
    void garbageIsKeptAsUnrecognizedAndBlankLinesYieldNothing() {
        assertEquals("""
                unrecognized reason="not JSON: Unrecognized token 'Error': was expecting (JSON String, Number, Array,\
                 Object or token 'null', 'true' or 'false')" raw="Error: cannot be used with root/sudo privileges"
                unrecognized reason="not a JSON object" raw="[1,2]"
                unrecognized reason="unknown claude event type 'rate_limit_event'" raw="{\\"type\\":\\"rate_limit_event\\"}"
                error code="no_result" message="claude exited with status 1 without reporting a result"
                completed success=false session=null result=null
                """, events("claude", 1, "Error: cannot be used with root/sudo privileges", "", "   ", "[1,2]",
                "{\"type\":\"rate_limit_event\"}"));
    }

    @Test
    void aSuccessfulResultWithAFailingExitIsAFailure() {
        assertEquals("""
                session_started "s1"
                usage input=3 output=4 cache_read=1 cache_write=2 cost_usd=0.5
                error code="exit_status" message="claude exited with status 2"
                completed success=false session="s1" result="done"
                """, events("claude", 2, "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,"
                + "\"result\":\"done\",\"session_id\":\"s1\",\"total_cost_usd\":0.5,\"usage\":{\"input_tokens\":3,"
                + "\"output_tokens\":4,\"cache_read_input_tokens\":1,\"cache_creation_input_tokens\":2}}"));
    }

    @Test
    void claudeTokenDeltasThinkingAndMaxTurns() {
        assertEquals("""
                text_delta "Hel"
                message reasoning "hmm"
                unrecognized reason="no unified counterpart: claude stream_event/message_stop" raw="{\\"type\\":\\"stream_event\\",\\"event\\":{\\"type\\":\\"message_stop\\"}}"
                error code="error_max_turns" message="turn limit; budget"
                completed success=false session=null result=null
                """, events("claude", 1,
                "{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"delta\":{\"type\":"
                        + "\"text_delta\",\"text\":\"Hel\"}}}",
                "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"}]}}",
                "{\"type\":\"stream_event\",\"event\":{\"type\":\"message_stop\"}}",
                "{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,\"errors\":[\"turn limit\","
                        + "\"budget\"]}"));
    }

    @Test
    void codexShellCommandThatFails() {
        assertEquals("""
                session_started "t1"
                tool_call id="item_1" name="command_execution" input={"command":"false"}
                tool_result id="item_1" error=true output="boom"
                usage input=10 output=2 cache_read=5 cache_write=0 cost_usd=null
                completed success=true session="t1" result=null
                """, events("codex", 0, "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}",
                "{\"type\":\"item.started\",\"item\":{\"id\":\"item_1\",\"type\":\"command_execution\",\"command\":"
                        + "\"false\",\"status\":\"in_progress\"}}",
                "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"command_execution\",\"command\":"
                        + "\"false\",\"aggregated_output\":\"boom\",\"exit_code\":1,\"status\":\"failed\"}}",
                "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":10,\"cached_input_tokens\":5,"
                        + "\"output_tokens\":2}}"));
    }

    @Test
    void geminiDeltasAreJoinedEvenWithoutAResult() {
        assertEquals("""
                text_delta "a"
                text_delta "b"
                message assistant "ab"
                error code="no_result" message="gemini exited with status 130 without reporting a result"
                completed success=false session=null result="ab"
                """, events("gemini", 130,
                "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"a\",\"delta\":true}",
                "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"b\",\"delta\":true}"));
    }

    @Test
    void opencodeFailedToolAndRefusedPermissions() {
        assertEquals("""
                session_started "ses_1"
                tool_call id="c1" name="bash" input={"command":"rm -rf x"}
                tool_result id="c1" error=true output="denied"
                error code="permission_rejected" message="[{\\"permission\\":\\"bash\\"}]"
                completed success=true session="ses_1" result=null
                """, events("opencode", 0,
                "{\"type\":\"tool_use\",\"sessionID\":\"ses_1\",\"part\":{\"tool\":\"bash\",\"callID\":\"c1\","
                        + "\"state\":{\"status\":\"error\",\"input\":{\"command\":\"rm -rf x\"},\"error\":\"denied\"}}}",
                "{\"type\":\"done\",\"sessionID\":\"ses_1\",\"reason\":\"idle\",\"rejected\":[{\"permission\":\"bash\"}]}"));
    }

    @Test
    void cursorToolFailure() {
        assertEquals("""
                tool_call id="c9" name="shell" input={"command":"x"}
                tool_result id="c9" error=true output="{\\"error\\":{\\"message\\":\\"nope\\"}}"
                """ + "error code=\"no_result\" message=\"cursor exited with status 0 without reporting a result\"\n"
                + "completed success=false session=null result=null\n", events("cursor", 0,
                "{\"type\":\"tool_call\",\"subtype\":\"completed\",\"call_id\":\"c9\",\"tool_call\":{\"shellToolCall\":"
                        + "{\"args\":{\"command\":\"x\"},\"result\":{\"error\":{\"message\":\"nope\"}}}}}"));
    }

    @Test
    void aParserIsUsedOnce() {
        StreamParser p = Plans.provider("qwen").newParser();
        p.finish(0);
        assertThrows(IllegalStateException.class, () -> p.parse("{}"));
        assertThrows(IllegalStateException.class, () -> p.finish(0));
    }
}
