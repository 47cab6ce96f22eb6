package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.merge.ChannelListCache;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelDescription;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelSession;
import io.tablestorecdc.checkpoint.tunnel.TunnelSessionConfig;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's consumer of one tunnel for one streaming query: the core's {@link TunnelConsumer}
 * (open and close order, every meta write and push fenced by the owner lease, the merge of a
 * committed batch with the server's listing, adoptions, pushes, renewals and heartbeats), scheduled
 * here: its periodic work on a daemon thread, per-channel requests on a pool, the listing cached
 * for planning.
 */
final class SourceConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SourceConnection.class);

    private static final Duration LISTING_TTL = Duration.ofSeconds(5);
    private static final String CLIENT_TAG = "tablestore-cdc-spark";
    private static final int REQUEST_THREADS = 8;
    private static final int META_THREADS = 4;

    /** How often the consumer's periodic work is looked at; it sends only what is due. */
    private static final Duration TICK = Duration.ofSeconds(1);

    /** How long a close waits for a request in flight before interrupting it. */
    private static final long STOP_MILLIS = 10_000;

    private final TablestoreSourceOptions options;
    private final String consumerId;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService requests;
    private final ExecutorService metaRequests;
    private TunnelConsumer consumer;
    private ChannelListCache listing;

    private SourceConnection(TablestoreSourceOptions options, String consumerId) {
        this.options = options;
        this.consumerId = consumerId;
        String tunnelName = options.tunnelName();
        this.metaRequests =
                Executors.newFixedThreadPool(
                        META_THREADS, DaemonThreads.named("tablestore-cdc-meta-" + tunnelName));
        this.requests =
                Executors.newFixedThreadPool(
                        REQUEST_THREADS,
                        DaemonThreads.named("tablestore-cdc-requests-" + tunnelName));
        this.scheduler =
                Executors.newSingleThreadScheduledExecutor(
                        DaemonThreads.named("tablestore-cdc-" + tunnelName));
    }

    /** Opens the query's consumer (the core's open order) and starts its periodic work. */
    static SourceConnection open(TablestoreSourceOptions options, String consumerId) {
        SourceConnection connection = new SourceConnection(options, consumerId);
        try {
            connection.start();
            return connection;
        } catch (RuntimeException e) {
            try {
                connection.close();
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    private void start() {
        TablestoreEndpoint endpoint = options.tablestoreEndpoint();
        SdkMetaTableClient metaClient = SdkMetaTableClient.connect(endpoint, options.metaTable());
        TunnelProxy proxy;
        try {
            proxy = SdkTunnelProxy.create(endpoint);
        } catch (RuntimeException e) {
            metaClient.close();
            throw e;
        }
        TunnelConsumer.Setup setup =
                TunnelConsumer.Setup.of(
                        Engine.SPARK,
                        options.settings(),
                        consumerId,
                        TunnelSessionConfig.withDefaults(CLIENT_TAG));
        consumer =
                TunnelConsumer.open(
                        setup,
                        proxy,
                        metaClient,
                        Optional.empty(),
                        new ServerPushLedger(),
                        Optional.of(metaRequests),
                        Optional.of(requests));
        listing = new ChannelListCache(this::listChannels, LISTING_TTL);
        scheduler.scheduleWithFixedDelay(
                this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            consumer.tick();
        } catch (OwnershipLostException e) {
            // Kept by the consumer: the next planning call throws it (checkHealthy).
        } catch (RuntimeException e) {
            LOG.error("Unexpected error in the periodic work of tunnel {}", tunnelId(), e);
        }
    }

    private List<ServerChannel> listChannels() {
        return consumer.proxy()
                .describeTunnel(options.tableName(), options.tunnelName())
                .channels();
    }

    /** The core's consumer. */
    TunnelConsumer consumer() {
        return consumer;
    }

    /** The catch-up report planning probes feed. */
    CatchUpReporter catchUp() {
        return consumer.catchUp();
    }

    /** Throws the error that stopped this connection (lost lease, expired tunnel), if any. */
    void checkHealthy() {
        consumer.checkHealthy();
    }

    /**
     * Merges the committed snapshot (empty for a first start) with the server listing, by the
     * core's rule ({@link TunnelConsumer#merge}).
     */
    MergeResult merge(Optional<BatchSnapshot> committed) {
        return consumer.merge(
                committed,
                listing.channels(),
                options.onVanishedChannel(),
                options.onServerAhead());
    }

    /** Channels skipped under {@code on.server.ahead=skip} in this run. */
    int channelsSkippedOnServerAhead() {
        return consumer.channelsSkippedOnServerAhead();
    }

    /** Channels the server marked finished are hidden from listings until confirmed. */
    void markFinished(Collection<String> channelIds) {
        channelIds.forEach(listing::markFinished);
    }

    String tunnelId() {
        return consumer.tunnelId();
    }

    TunnelDescription tunnel() {
        return consumer.tunnel();
    }

    TunnelClientId clientId() {
        return consumer.clientId();
    }

    TunnelSession session() {
        return consumer.session();
    }

    TunnelProxy proxy() {
        return consumer.proxy();
    }

    /** The tunnel's meta rows as this query writes them: every write fenced by the owner lease. */
    TunnelMeta meta() {
        return consumer.meta();
    }

    /** Runs per-channel requests of the driver (planning probes, progress pushes) at once. */
    ExecutorService requests() {
        return requests;
    }

    /**
     * Stops the threads (a tick or request in flight lands, it is not interrupted), then closes the
     * consumer in the core's order, so that the next consumer can start at once. Every step runs
     * even when one before failed.
     */
    @Override
    public void close() {
        CloseSequence.of("the connection to tunnel '" + options.tunnelName() + "'")
                .thenStop("stop the periodic work", scheduler, STOP_MILLIS)
                .thenStop("stop the request threads", requests, STOP_MILLIS)
                .thenStop("stop the meta request threads", metaRequests, STOP_MILLIS)
                .then("close the consumer", this::closeConsumer)
                .finish();
    }

    private void closeConsumer() {
        if (consumer != null) {
            consumer.close();
        }
    }
}
