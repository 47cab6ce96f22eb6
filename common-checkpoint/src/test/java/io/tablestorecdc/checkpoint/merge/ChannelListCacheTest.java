package io.tablestorecdc.checkpoint.merge;

import static io.tablestorecdc.checkpoint.merge.Channels.listed;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.OPEN;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.TERMINATED;
import static io.tablestorecdc.checkpoint.model.ServerChannelStatus.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ChannelListCacheTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final Deque<List<ServerChannel>> responses = new ArrayDeque<>();
    private int fetches;
    private final ChannelListCache cache =
            new ChannelListCache(this::fetch, Duration.ofSeconds(10), nanos::get);

    private List<ServerChannel> fetch() {
        fetches++;
        return responses.size() > 1 ? responses.poll() : responses.peek();
    }

    @Test
    void servesTheListingUntilItExpires() {
        responses.add(List.of(listed("a", OPEN)));
        responses.add(List.of(listed("a", OPEN), listed("b", OPEN)));

        assertThat(cache.channels()).extracting(ServerChannel::channelId).containsExactly("a");
        nanos.addAndGet(Duration.ofSeconds(9).toNanos());
        assertThat(cache.channels()).hasSize(1);
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(cache.channels()).hasSize(2);
        assertThat(fetches).isEqualTo(2);
    }

    @Test
    void invalidateFetchesAgain() {
        responses.add(List.of(listed("a", OPEN)));
        responses.add(List.of(listed("a", OPEN), listed("b", WAIT)));
        cache.channels();

        cache.invalidate();

        assertThat(cache.channels()).hasSize(2);
        assertThat(fetches).isEqualTo(2);
    }

    @Test
    void staleListingNeverShowsAFinishedChannelOpen() {
        // The server is slow to reflect the push: two fetches after the mark still say OPEN.
        responses.add(List.of(listed("p", OPEN), listed("c", WAIT)));
        responses.add(List.of(listed("p", OPEN), listed("c", WAIT)));
        responses.add(List.of(listed("p", OPEN), listed("c", WAIT)));
        responses.add(List.of(listed("p", TERMINATED), listed("c", OPEN)));
        cache.channels();

        cache.markFinished("p");

        assertThat(statusOf("p")).isEqualTo(TERMINATED);
        cache.invalidate();
        assertThat(statusOf("p")).isEqualTo(TERMINATED);
        cache.invalidate();
        assertThat(statusOf("p")).isEqualTo(TERMINATED);
        assertThat(statusOf("c")).isEqualTo(OPEN);
    }

    @Test
    void markedChannelIsForgottenOnceTheServerStopsListingIt() {
        responses.add(List.of(listed("p", OPEN)));
        responses.add(List.of(listed("x", OPEN)));
        responses.add(List.of(listed("p", OPEN)));
        cache.channels();
        cache.markFinished("p");
        assertThat(cache.channels()).extracting(ServerChannel::channelId).containsExactly("x");

        cache.invalidate();

        // After the server confirmed it, what the server says is shown again.
        assertThat(statusOf("p")).isEqualTo(OPEN);
    }

    @Test
    void markFinishedDropsTheCachedListingSoChildrenShowUp() {
        responses.add(List.of(listed("p", OPEN), listed("c", WAIT)));
        responses.add(List.of(listed("p", TERMINATED), listed("c", OPEN)));
        cache.channels();

        cache.markFinished("p");

        assertThat(statusOf("c")).isEqualTo(OPEN);
    }

    @Test
    void rejectsANonPositiveRefreshInterval() {
        assertThatThrownBy(() -> new ChannelListCache(List::of, Duration.ZERO, nanos::get))
                .hasMessageContaining("refresh interval must be positive");
    }

    private ServerChannelStatus statusOf(String id) {
        return cache.channels().stream()
                .filter(c -> c.channelId().equals(id))
                .findFirst()
                .orElseThrow()
                .status();
    }
}
