package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;

/**
 * The SDK clients that the partition readers of one JVM (an executor, or the driver in local mode)
 * share, per endpoint, instance and credentials.
 *
 * <p>Building and shutting down a {@code TunnelClient} and a {@code SyncClient} (each with its own
 * HTTP client and I/O threads) cost tens of milliseconds per task; a micro-batch runs one task per
 * channel. Tasks therefore borrow the clients cached here. A client no task has used for {@link
 * #IDLE_TIMEOUT} is closed by a daemon thread, and all are closed when the JVM stops. Nothing on
 * the driver knows of this cache: a JVM that has none opens its own.
 */
final class ExecutorClients {

    /** How long a client nobody borrows stays open. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

    private static final SharedClients<ClientKey, SharedTunnelClient> TUNNELS =
            new SharedClients<>("tunnel client", IDLE_TIMEOUT, System::nanoTime);
    private static final SharedClients<MetaTableKey, SdkMetaTableClient> META_TABLES =
            new SharedClients<>("meta table client", IDLE_TIMEOUT, System::nanoTime);

    // Threads come and go with the tasks that read ahead (at most one page per task at a time).
    private static final ExecutorService READ_AHEAD =
            Executors.newCachedThreadPool(DaemonThreads.named("tablestore-cdc-read-ahead"));

    static {
        ScheduledExecutorService evictor =
                Executors.newSingleThreadScheduledExecutor(
                        DaemonThreads.named("tablestore-cdc-client-evictor"));
        long every = IDLE_TIMEOUT.toMillis() / 4;
        evictor.scheduleWithFixedDelay(
                ExecutorClients::closeIdle, every, every, TimeUnit.MILLISECONDS);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(ExecutorClients::closeAll, "tablestore-cdc-client-shutdown"));
    }

    private ExecutorClients() {}

    /** The applications whose end closes the clients (one listener each). */
    private static final Set<String> HOOKED_APPLICATIONS = ConcurrentHashMap.newKeySet();

    /**
     * Closes every cached client when {@code context}'s application ends. The SDK's I/O threads are
     * not daemons: in a JVM whose executor is the driver's (local mode, or a JVM that runs Spark
     * among other things), clients left open until their idle timeout would keep the JVM alive for
     * up to a minute after {@code main} returned.
     */
    static void closeWhenApplicationEnds(SparkContext context) {
        if (HOOKED_APPLICATIONS.add(context.applicationId())) {
            context.addSparkListener(
                    new SparkListener() {
                        @Override
                        public void onApplicationEnd(SparkListenerApplicationEnd end) {
                            closeAll();
                        }
                    });
        }
    }

    /** The tunnel client for {@code endpoint}; return it by closing the lease. */
    static SharedClients<ClientKey, SharedTunnelClient>.Lease tunnel(TablestoreEndpoint endpoint) {
        return TUNNELS.borrow(ClientKey.of(endpoint), () -> SharedTunnelClient.open(endpoint));
    }

    /** The meta table client for {@code endpoint} and {@code table}; return it likewise. */
    static SharedClients<MetaTableKey, SdkMetaTableClient>.Lease metaTable(
            TablestoreEndpoint endpoint, String table) {
        return META_TABLES.borrow(
                new MetaTableKey(ClientKey.of(endpoint), table),
                () -> SdkMetaTableClient.connect(endpoint, table));
    }

    /** Where tasks read their channel's next page while they convert the current one. */
    static Executor readAheadThreads() {
        return READ_AHEAD;
    }

    private static void closeIdle() {
        TUNNELS.closeIdle();
        META_TABLES.closeIdle();
    }

    private static void closeAll() {
        TUNNELS.closeAll();
        META_TABLES.closeAll();
    }

    /** A meta table client is per instance, credentials and table. */
    record MetaTableKey(ClientKey client, String table) {}
}
