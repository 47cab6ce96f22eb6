package io.tablestorecdc.checkpoint.merge;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The tunnel server's channel listing, fetched at most once per time-to-live.
 *
 * <p>A listing fetched before a channel's {@code finished} was pushed still shows the channel
 * {@code OPEN}. Channels marked finished are therefore shown {@code TERMINATED} until a listing
 * fetched after the mark confirms it (lists it {@code TERMINATED} or no longer lists it), so a
 * stale listing can never make a finished channel readable again.
 */
@Internal
public final class ChannelListCache {

    private static final String KEY = "channels";

    private final Supplier<List<ServerChannel>> source;
    private final LoadingCache<String, List<ServerChannel>> cache;
    private final AtomicLong marks = new AtomicLong();

    /** Finished channel id to the mark number it got; confirmed ids are removed. */
    private final Map<String, Long> finished = new ConcurrentHashMap<>();

    /**
     * @param source fetches the listing from the server (for example DescribeTunnel)
     * @param ttl how long a fetched listing is served
     * @param nanoTime the clock, in nanoseconds; tests pass a fake one
     */
    public ChannelListCache(
            Supplier<List<ServerChannel>> source, Duration ttl, LongSupplier nanoTime) {
        this.source = Objects.requireNonNull(source, "source");
        Objects.requireNonNull(nanoTime, "nanoTime");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException(
                    "The channel list refresh interval must be positive but was " + ttl);
        }
        this.cache =
                Caffeine.newBuilder()
                        .expireAfterWrite(ttl)
                        .ticker(nanoTime::getAsLong)
                        .build(key -> fetch());
    }

    public ChannelListCache(Supplier<List<ServerChannel>> source, Duration ttl) {
        this(source, ttl, System::nanoTime);
    }

    /** The listing, fetched if the cached one expired or was invalidated. */
    public List<ServerChannel> channels() {
        List<ServerChannel> out = new ArrayList<>();
        for (ServerChannel channel : cache.get(KEY)) {
            out.add(finished.containsKey(channel.channelId()) ? terminated(channel) : channel);
        }
        return List.copyOf(out);
    }

    /** Drops the cached listing; the next {@link #channels()} fetches. */
    public void invalidate() {
        cache.invalidateAll();
    }

    /**
     * Records that {@code channelId}'s {@code finished} was pushed to the server, and drops the
     * cached listing so that its children (now opened by the server) show up.
     */
    public void markFinished(String channelId) {
        finished.put(Objects.requireNonNull(channelId, "channelId"), marks.incrementAndGet());
        invalidate();
    }

    private List<ServerChannel> fetch() {
        long marksBeforeFetch = marks.get();
        List<ServerChannel> listing = List.copyOf(source.get());
        Map<String, ServerChannelStatus> statuses = new HashMap<>();
        listing.forEach(c -> statuses.put(c.channelId(), c.status()));
        // Only a listing fetched after the mark can confirm it; an older one may be stale.
        finished.entrySet()
                .removeIf(
                        e ->
                                e.getValue() <= marksBeforeFetch
                                        && statuses.getOrDefault(
                                                        e.getKey(), ServerChannelStatus.TERMINATED)
                                                == ServerChannelStatus.TERMINATED);
        return listing;
    }

    private static ServerChannel terminated(ServerChannel channel) {
        return channel.status() == ServerChannelStatus.TERMINATED
                ? channel
                : new ServerChannel(
                        channel.channelId(),
                        channel.type(),
                        ServerChannelStatus.TERMINATED,
                        channel.clientId(),
                        channel.consumePointMillis());
    }
}
