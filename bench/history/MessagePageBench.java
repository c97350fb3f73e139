import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.agentworkspace.core.files.VcsProviders;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.api.history.MessagePage;

/**
 * In-process: {@code HistoryIndex.messages()} of a session's newest and oldest page of 50 on an indexed data directory
 * (the 2 GB benchmark's, left behind by HistoryIndexBench), warm (200 calls, then N timed), three rounds; with
 * {@code -Dser=true} also the server's view and JSON of each page. Where a page's time goes without HTTP
 * (docs/benchmarks.md "Run 18"). Usage, with the server's jar and its libs:
 * {@code java [-Dser=true] -cp "workspace-server/target/workspace-server.jar:workspace-server/target/libs/*"
 * bench/history/MessagePageBench.java DATA_DIR HOME SESSION_ID 300}
 */
public class MessagePageBench {
    public static void main(String[] a) throws Exception {
        Path data = Path.of(a[0]);
        Path home = Path.of(a[1]);
        String sid = a[2];
        int n = Integer.parseInt(a[3]);
        Store store = Store.open("jdbc:sqlite:" + data.resolve("workspace.db"));
        ProjectRegistry reg = ProjectRegistry.create(store, Clock.systemUTC(), data, VcsProviders.load());
        HistoryIndex idx = HistoryIndex.create(store, reg, List.of(home), Clock.systemUTC(), Duration.ofHours(1));
        MessagePage first = idx.messages(null, sid, null, 50, 0);
        int total = first.total();
        System.out.println("total " + total);
        for (int round = 0; round < 3; round++) {
            run("newest", idx, sid, 0, n);
            run("oldest", idx, sid, total - 50, n);
        }
        System.exit(0);
    }

    static boolean SER = Boolean.getBoolean("ser");
    static int bytes;
    static final org.agentworkspace.server.http.Json JSON = new org.agentworkspace.server.http.Json();

    static void run(String name, HistoryIndex idx, String sid, int offset, int n) {
        for (int i = 0; i < 200; i++) {
            idx.messages(null, sid, null, 50, offset);
        }
        double[] t = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            MessagePage p = idx.messages(null, sid, null, 50, offset);
            if (SER) {
                byte[] out = JSON.write(org.agentworkspace.server.http.Views.messagePage(p));
                bytes = out.length;
            }
            t[i] = (System.nanoTime() - t0) / 1e6;
            if (p.messages().size() != 50) throw new IllegalStateException();
        }
        Arrays.sort(t);
        System.out.printf("%s (%d bytes): p50 %.3f ms, p90 %.3f ms, min %.3f ms%n", name, bytes, t[n / 2], t[n * 9 / 10], t[0]);
    }
}
