package org.agentworkspace.testkit.historygen;

import java.util.SplittableRandom;

/**
 * Word lists and text builders for generated conversations. Everything is ASCII (so a line's length in chars is
 * its length in bytes) and drawn from a {@link SplittableRandom}, so the same seed gives the same text.
 *
 * <p>Words are drawn with a skew towards the front of {@link #WORDS}: the first entries appear in almost every
 * session (the {@link #COMMON} words a search benchmark can rely on), the tail rarely. {@link #ABSENT} is built
 * from letters that no word list entry contains in that order and is never written.
 */
final class Vocabulary {
    /** Words that occur in nearly every generated session (high rank in {@link #WORDS}). */
    static final String[] COMMON = {"request", "config", "handler", "update", "error"};

    /** A word that the generator never writes (no list entry and no identifier contains it). */
    static final String ABSENT = "qwzxvortalk";

    static final String[] WORDS = (
            "the to and of a in is it that for request config handler update error this with on be as we "
            + "function test file value data should can not from at by return when if or use then call "
            + "server client response build module method class field type string list map null check run "
            + "index query cache session project user token path route version change line output input "
            + "parse write read stream buffer thread lock queue event message result status code format "
            + "default option flag param argument schema table column row record entry key store load save "
            + "open close start stop retry timeout limit offset page size count total first last next "
            + "previous before after since until while loop branch commit merge diff patch rebase tag "
            + "release deploy docker image container volume network port host address proxy header body "
            + "cookie auth login logout password secret scope role admin permission access deny allow "
            + "policy rule match pattern regex filter sort order group join select insert delete upsert "
            + "migration transaction rollback snapshot backup restore export import package dependency "
            + "compile link bundle minify lint format typecheck coverage benchmark profile trace metric log "
            + "warning info debug verbose quiet fast slow memory heap stack frame pointer reference "
            + "instance object array vector tuple struct enum interface trait generic template macro "
            + "closure lambda callback promise future async await channel signal mutex atomic volatile "
            + "render component state props hook effect reducer store selector action dispatch layout "
            + "style theme color font margin padding border width height flex grid modal dialog button "
            + "input form validate submit reset focus blur hover click scroll resize drag drop upload "
            + "download fetch retry backoff jitter circuit breaker fallback health probe ready live "
            + "kubernetes helm chart pod service ingress secret configmap namespace node cluster replica "
            + "shard partition leader follower consensus quorum election heartbeat lease watch notify "
            + "subscribe publish topic consumer producer offset commit ack nack dead letter poison "
            + "sqlite postgres mysql redis kafka elastic lucene token analyzer stemmer tokenizer ranking "
            + "score boost phrase prefix fuzzy wildcard highlight snippet facet aggregate bucket histogram "
            + "percentile latency throughput bandwidth jitter spike regression baseline flamegraph sampler "
            + "allocation garbage collector pause young old generation region humongous compaction "
            + "refactor rename extract inline move split combine simplify clarify document explain review "
            + "approve reject comment suggest nit typo wording naming readability maintainable brittle "
            + "flaky deterministic seed random shuffle sample uniform gaussian zipf skew distribution "
            + "parser lexer grammar ast visitor walker emitter generator compiler interpreter runtime "
            + "bytecode opcode register assembler linker loader classpath modulepath jar manifest "
            + "gradle maven npm yarn pnpm cargo pip poetry venv conda brew apt yum pacman nix flake "
            + "terraform ansible puppet chef vagrant packer consul vault nomad envoy istio linkerd "
            + "websocket sse polling longpoll grpc protobuf avro thrift json yaml toml xml csv parquet "
            + "encoding utf charset unicode escape quote delimiter newline whitespace indent tab trailing "
            + "cursor pagination window tail head chunk segment block sector inode mtime ctime fsync "
            + "rename atomic temp directory folder symlink hardlink mount unmount permission chmod chown "
            + "sandbox seccomp namespace cgroup capability privilege escalation injection traversal "
            + "overflow underflow race deadlock livelock starvation priority inversion scheduler "
            + "pipeline stage worker pool executor task job cron schedule trigger webhook callback").split(" ");

    private static final String[] EXT = {"java", "ts", "tsx", "py", "go", "rs", "md", "json", "yaml", "sh", "sql"};
    private static final String[] DIRS = {"src", "lib", "app", "internal", "pkg", "test", "docs", "scripts",
            "config", "server", "client", "core", "api", "web", "cmd", "tools"};
    private static final String[] TOOLS = {"Bash", "Read", "Edit", "Write", "Grep", "Glob"};
    private static final String[] LANG = {"java", "typescript", "python", "go", "rust", "sql", "bash"};

    private Vocabulary() {
    }

    /** A word, skewed to the front of the list (rank ~ n * u^2.2). */
    static String word(SplittableRandom r) {
        double u = r.nextDouble();
        int i = (int) (WORDS.length * Math.pow(u, 2.2));
        return WORDS[Math.min(i, WORDS.length - 1)];
    }

    /** A rare-ish word, uniform over the list. */
    static String anyWord(SplittableRandom r) {
        return WORDS[r.nextInt(WORDS.length)];
    }

    static void sentence(SplittableRandom r, StringBuilder sb) {
        int n = 6 + r.nextInt(14);
        for (int i = 0; i < n; i++) {
            String w = i % 5 == 2 ? anyWord(r) : word(r);
            if (i == 0) {
                sb.append(Character.toUpperCase(w.charAt(0))).append(w, 1, w.length());
            } else {
                sb.append(' ');
                if (r.nextInt(40) == 0) {
                    sb.append('`').append(identifier(r)).append('`');
                    continue;
                }
                sb.append(w);
            }
            if (i < n - 1 && r.nextInt(12) == 0) {
                sb.append(',');
            }
        }
        sb.append(r.nextInt(8) == 0 ? '?' : '.');
    }

    static void paragraph(SplittableRandom r, StringBuilder sb, int sentences) {
        for (int i = 0; i < sentences; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sentence(r, sb);
        }
    }

    static String identifier(SplittableRandom r) {
        String a = anyWord(r);
        String b = anyWord(r);
        return switch (r.nextInt(3)) {
            case 0 -> a + Character.toUpperCase(b.charAt(0)) + b.substring(1);
            case 1 -> a + "_" + b;
            default -> a;
        };
    }

    static String filePath(SplittableRandom r, String project) {
        return project + "/" + DIRS[r.nextInt(DIRS.length)] + "/" + anyWord(r) + "/" + identifier(r) + "."
                + EXT[r.nextInt(EXT.length)];
    }

    static String tool(SplittableRandom r) {
        return TOOLS[r.nextInt(TOOLS.length)];
    }

    /** A fenced code block of about {@code lines} lines. */
    static void codeBlock(SplittableRandom r, StringBuilder sb, int lines) {
        sb.append("```").append(LANG[r.nextInt(LANG.length)]).append('\n');
        code(r, sb, lines);
        sb.append("```");
    }

    /** Code-looking lines (with quotes, braces and backslashes, so JSON escaping is exercised). */
    static void code(SplittableRandom r, StringBuilder sb, int lines) {
        int depth = 0;
        for (int i = 0; i < lines; i++) {
            sb.append("    ".repeat(depth));
            switch (r.nextInt(7)) {
                case 0 -> {
                    sb.append("if (").append(identifier(r)).append(" != null) {");
                    depth = Math.min(depth + 1, 4);
                }
                case 1 -> sb.append("return ").append(identifier(r)).append('(').append(anyWord(r)).append(");");
                case 2 -> sb.append("log.info(\"").append(word(r)).append(' ').append(anyWord(r))
                        .append(": {}\\n\", ").append(identifier(r)).append(");");
                case 3 -> {
                    sb.append('}');
                    depth = Math.max(0, depth - 1);
                }
                case 4 -> sb.append("// ").append(word(r)).append(' ').append(anyWord(r)).append(' ').append(word(r));
                case 5 -> sb.append("var ").append(identifier(r)).append(" = ").append(identifier(r)).append(".")
                        .append(anyWord(r)).append("(\"").append(anyWord(r)).append("\", ")
                        .append(r.nextInt(1000)).append(");");
                default -> sb.append(identifier(r)).append('.').append(anyWord(r)).append("(\t")
                        .append(r.nextInt(100)).append(");");
            }
            sb.append('\n');
        }
    }

    /** Tool output (a build or test log, a file listing, grep hits) of about {@code bytes} characters. */
    static void toolOutput(SplittableRandom r, StringBuilder sb, int bytes, String project) {
        int start = sb.length();
        int style = r.nextInt(4);
        int n = 0;
        while (sb.length() - start < bytes) {
            switch (style) {
                case 0 -> sb.append("[INFO] ").append(word(r)).append(' ').append(anyWord(r)).append(' ')
                        .append(identifier(r)).append(" (").append(r.nextInt(900) + 10).append(" ms)");
                case 1 -> sb.append(filePath(r, project)).append(':').append(r.nextInt(800) + 1).append(": ")
                        .append(identifier(r)).append(' ').append(word(r)).append(' ').append(anyWord(r));
                case 2 -> {
                    sb.append(String.format("%4d", ++n)).append("  ");
                    code(r, sb, 1);
                    sb.setLength(sb.length() - 1);
                }
                default -> sb.append(r.nextInt(5) == 0 ? "FAIL " : "PASS ").append(identifier(r)).append(" > ")
                        .append(word(r)).append(' ').append(anyWord(r));
            }
            sb.append('\n');
        }
    }
}
