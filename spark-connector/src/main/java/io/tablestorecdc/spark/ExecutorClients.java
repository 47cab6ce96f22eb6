package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.table.ForwardingTableService;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableService;
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
 * share, per endpoint, instance and credentials: the CDC source's, and the bounded read's table
 * clients (a batch read runs one task per split).
 *
 * <p>Building and shutting down a {@code TunnelClient} and a {@code SyncClient} (each with its own
 * HTTP client and I/O threads) cost tens of milliseconds per task; a micro-batch runs one task per
 * channel. Tasks therefore borrow the clients cached here. A client no task has used for {@link
 * #IDLE_TIMEOUT} is closed by a daemon thread, and all are closed when the JVM stops. Nothing on
 * the driver knows of this cache: a JVM that has none opens its own.
 */
@Internal
public final class ExecutorClients {

    /** How long a client nobody borrows stays open. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

    private static final SharedClients<ClientKey, SharedTunnelClient> TUNNELS =
            new SharedClients<>("tunnel client", IDLE_TIMEOUT, System::nanoTime);
    private static final SharedClients<MetaTableKey, SdkMetaTableClient> META_TABLES =
            new SharedClients<>("meta table client", IDLE_TIMEOUT, System::nanoTime);
    private static final SharedClients<TableKey, SdkTableService> TABLES =
            new SharedClients<>("table client", IDLE_TIMEOUT, System::nanoTime);

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
    public static void closeWhenApplicationEnds(SparkContext context) {
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

    /**
     * The read service of table {@code table} at {@code endpoint}, shared with the other tasks of
     * this JVM; closing it returns it.
     */
    public static TableService table(TablestoreEndpoint endpoint, String table) {
        return new BorrowedTable(
                TABLES.borrow(
                        new TableKey(ClientKey.of(endpoint), table),
                        () -> SdkTableService.connect(endpoint, table)));
    }

    /** Table services cached now. */
    static int cachedTables() {
        return TABLES.size();
    }

    /** Where tasks read their channel's next page while they convert the current one. */
    static Executor readAheadThreads() {
        return READ_AHEAD;
    }

    private static void closeIdle() {
        TUNNELS.closeIdle();
        META_TABLES.closeIdle();
        TABLES.closeIdle();
    }

    private static void closeAll() {
        TUNNELS.closeAll();
        META_TABLES.closeAll();
        TABLES.closeAll();
    }

    /** A meta table client is per instance, credentials and table. */
    record MetaTableKey(ClientKey client, String table) {}

    /** So is a data table's read service. */
    record TableKey(ClientKey client, String table) {}

    /** A borrowed table service: every call goes to the shared one; closing returns it. */
    private static final class BorrowedTable extends ForwardingTableService {
        private final SharedClients<TableKey, SdkTableService>.Lease lease;

        BorrowedTable(SharedClients<TableKey, SdkTableService>.Lease lease) {
            super(lease.client());
            this.lease = lease;
        }

        @Override
        public void close() {
            lease.close();
        }
    }
}
