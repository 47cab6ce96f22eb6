package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.ServerPushLedger;
import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.merge.ChannelListCache;
import io.tablestorecdc.checkpoint.merge.MergeResult;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.Engine;
import io.tablestorecdc.checkpoint.model.ServerChannel;
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
import java.util.concurrent.ScheduledFuture;
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

    /** How often the consumer's periodic work is looked at; it sends only what is due. */
    private static final Duration TICK = Duration.ofSeconds(1);

    private final TablestoreSourceOptions options;
    private final String consumerId;
    private final DriverResources shared;
    private final Object tickLock = new Object();
    private ScheduledFuture<?> ticks;
    private boolean closed;
    private TunnelConsumer consumer;
    private ChannelListCache listing;

    private SourceConnection(
            TablestoreSourceOptions options, String consumerId, DriverResources shared) {
        this.options = options;
        this.consumerId = consumerId;
        this.shared = shared;
    }

    /**
     * Opens the consumer of {@code options}' one table (the core's open order) on the query's
     * {@code shared} clients and threads, and starts its periodic work.
     */
    static SourceConnection open(
            TablestoreSourceOptions options, String consumerId, DriverResources shared) {
        SourceConnection connection = new SourceConnection(options, consumerId, shared);
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
        TunnelConsumer.Setup setup =
                TunnelConsumer.Setup.of(
                        Engine.SPARK,
                        options.settings(),
                        consumerId,
                        TunnelSessionConfig.withDefaults(CLIENT_TAG));
        consumer =
                TunnelConsumer.open(
                        setup,
                        shared.proxy(),
                        shared.metaClient(),
                        Optional.empty(),
                        new ServerPushLedger(),
                        Optional.of(shared.metaRequests),
                        Optional.of(shared.requests));
        listing = new ChannelListCache(this::listChannels, LISTING_TTL);
        ticks =
                shared.scheduler.scheduleWithFixedDelay(
                        this::tick, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void tick() {
        synchronized (tickLock) {
            if (!closed) {
                tickNow();
            }
        }
    }

    private void tickNow() {
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
        return shared.requests;
    }

    /** The query's shared threads and clients. */
    DriverResources shared() {
        return shared;
    }

    /**
     * Stops the periodic work (a tick in flight lands, it is not interrupted), then closes the
     * consumer in the core's order, so that the next consumer can start at once (the clients and
     * threads are the query's, closed after every table's). Every step runs even when one before
     * failed.
     */
    @Override
    public void close() {
        CloseSequence.of("the connection to tunnel '" + options.tunnelName() + "'")
                .then("stop the periodic work", this::stopTicks)
                .then("close the consumer", this::closeConsumer)
                .finish();
    }

    private void stopTicks() {
        if (ticks != null) {
            ticks.cancel(false);
        }
        synchronized (tickLock) {
            closed = true;
        }
    }

    private void closeConsumer() {
        if (consumer != null) {
            consumer.close();
        }
    }
}
