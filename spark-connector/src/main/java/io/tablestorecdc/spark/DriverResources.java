package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.meta.ForwardingMetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the tables of one query share on the driver: the SDK clients (one tunnel client and one meta
 * table client for the instance, whatever the number of tables) and the threads (the consumers'
 * periodic work, per-channel requests, meta requests, progress pushes, purges). A query of a
 * hundred tables then runs the threads and connections of a query of one, not a hundred times
 * those. Each table's consumer gets views of the clients whose {@code close()} does nothing; the
 * query closes the clients and stops the threads after every table's consumer closed.
 */
final class DriverResources implements AutoCloseable {

    static final int REQUEST_THREADS = 8;
    static final int META_THREADS = 4;
    static final int PUSH_THREADS = 2;

    /** How long a close waits for a request in flight before interrupting it. */
    private static final long STOP_MILLIS = 10_000;

    private final String name;
    private final SdkMetaTableClient metaClient;
    private final TunnelProxy proxy;
    final ScheduledExecutorService scheduler;
    final ExecutorService requests;
    final ExecutorService metaRequests;
    final ScheduledExecutorService pushes;
    final ExecutorService purges;

    private DriverResources(
            String name, SdkMetaTableClient metaClient, TunnelProxy proxy, String threadSuffix) {
        this.name = name;
        this.metaClient = metaClient;
        this.proxy = proxy;
        this.metaRequests =
                Executors.newFixedThreadPool(
                        META_THREADS, DaemonThreads.named("tablestore-cdc-meta-" + threadSuffix));
        this.requests =
                Executors.newFixedThreadPool(
                        REQUEST_THREADS,
                        DaemonThreads.named("tablestore-cdc-requests-" + threadSuffix));
        this.scheduler =
                Executors.newSingleThreadScheduledExecutor(
                        DaemonThreads.named("tablestore-cdc-" + threadSuffix));
        this.pushes =
                Executors.newScheduledThreadPool(
                        PUSH_THREADS,
                        DaemonThreads.named("tablestore-cdc-progress-" + threadSuffix));
        this.purges =
                Executors.newSingleThreadExecutor(
                        DaemonThreads.named("tablestore-cdc-purge-" + threadSuffix));
    }

    /**
     * Connects the shared clients to the instance of {@code options} (the meta table {@code
     * meta.table}) and starts the threads, named after {@code tunnelName}.
     */
    static DriverResources open(TablestoreSourceOptions options) {
        TablestoreEndpoint endpoint = options.tablestoreEndpoint();
        SdkMetaTableClient metaClient = SdkMetaTableClient.connect(endpoint, options.metaTable());
        TunnelProxy proxy;
        try {
            proxy = SdkTunnelProxy.create(endpoint);
        } catch (RuntimeException e) {
            metaClient.close();
            throw e;
        }
        return new DriverResources(
                "the driver resources of tunnel '" + options.tunnelName() + "'",
                metaClient,
                proxy,
                options.tunnelName());
    }

    /** The meta table client, as one table's consumer uses it: its close does nothing. */
    MetaTableClient metaClient() {
        return new ForwardingMetaTableClient(metaClient) {};
    }

    /** The tunnel client, as one table's consumer uses it: its close does nothing. */
    TunnelProxy proxy() {
        return new ForwardingTunnelProxy(proxy) {
            @Override
            public void close() {
                // The query closes the shared client after every table's consumer.
            }
        };
    }

    /**
     * Stops the threads (a task in flight lands, it is not interrupted before the timeout), then
     * closes the clients; every step runs even when one before failed.
     */
    @Override
    public void close() {
        CloseSequence.of(name)
                .thenStop("stop the periodic work", scheduler, STOP_MILLIS)
                .thenStop("stop the progress pushes", pushes, STOP_MILLIS)
                .thenStop("stop the purges", purges, STOP_MILLIS)
                .thenStop("stop the request threads", requests, STOP_MILLIS)
                .thenStop("stop the meta request threads", metaRequests, STOP_MILLIS)
                .then("close the tunnel client", proxy::close)
                .then("close the meta table client", metaClient::close)
                .finish();
    }
}
