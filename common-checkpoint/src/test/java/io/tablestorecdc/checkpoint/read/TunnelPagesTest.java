package io.tablestorecdc.checkpoint.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.testing.FakeTunnelService;
import io.tablestorecdc.checkpoint.tunnel.TunnelClientId;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import io.tablestorecdc.emulator.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reading ahead and counting requests, as the channel readers use them. */
class TunnelPagesTest {

    private static final TunnelClientId CLIENT = new TunnelClientId("tunnel", "client");
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void theNextPageIsRequestedBeforeTheReaderAsksAndTakenWithoutASecondRequest() {
        FakeTunnelService server = pages(9, 3);
        TunnelPages pages = TunnelPages.readingAhead(server, threads);
        ChannelReader reader = reader(pages, Long.MAX_VALUE);

        reader.takeResponse();
        Await.until("c@3 requested ahead", DEADLINE, () -> requested(server, "c@3"));
        ChannelResponse second = reader.takeResponse();

        assertThat(second.end()).isEqualTo(3);
        assertThat(reader.position()).isEqualTo(ChannelPosition.at("c@6"));
        Await.until("c@6 requested ahead", DEADLINE, () -> requested(server, "c@6"));
        assertThat(server.requests().readTokens()).containsExactly("c@0", "c@3", "c@6");
        assertThat(pages.readRequests()).isEqualTo(3);
    }

    @Test
    void aPageWithoutMoreDataIsNotFollowed() throws Exception {
        FakeTunnelService server = pages(3, 3);
        TunnelPages pages = TunnelPages.readingAhead(server, threads);

        reader(pages, Long.MAX_VALUE).takeResponse();
        threads.submit(() -> {}).get(); // an idle pool: nothing queued behind a request

        assertThat(server.requests().readTokens()).containsExactly("c@0");
        assertThat(pages.readRequests()).isEqualTo(1);
    }

    @Test
    void noPageIsReadAheadPastTheRecordsTheReaderMayDeliver() {
        FakeTunnelService server = pages(12, 3);
        ChannelReader reader = reader(TunnelPages.readingAhead(server, threads), 6);

        reader.takeResponse();
        reader.takeResponse();

        assertThat(server.requests().readTokens()).containsExactly("c@0", "c@3");
    }

    @Test
    void theErrorOfAPageReadAheadReachesTheReaderAsItIs() {
        FakeTunnelService server = pages(6, 3);
        server.script()
                .failReadsAt(
                        "c@3", new TunnelException(TunnelException.Kind.INVALID, "c@3 refused"));
        ChannelReader reader = reader(TunnelPages.readingAhead(server, threads), Long.MAX_VALUE);

        reader.takeResponse();

        assertThatThrownBy(reader::takeResponse)
                .isInstanceOf(TunnelException.class)
                .hasMessageContaining("c@3 refused");
    }

    @Test
    void aPageAheadOfAnotherTokenLeavesTheReadToBeSentAsUsual() {
        FakeTunnelService server = pages(9, 3);
        TunnelPages pages = TunnelPages.readingAhead(server, threads);

        pages.readAhead(CLIENT, "c", ChannelPosition.at("c@3"));
        ChannelReader reader = reader(pages, 0);
        reader.takeResponse();

        assertThat(reader.position()).isEqualTo(ChannelPosition.at("c@3"));
        assertThat(server.requests().readTokens()).contains("c@0");
        assertThat(reader.takeResponse().end()).isEqualTo(3);
    }

    @Test
    void directPagesAreNeverReadAheadAndEveryRequestIsCounted() {
        FakeTunnelService server = pages(9, 3);
        TunnelPages pages = TunnelPages.direct(server);
        ChannelReader reader = reader(pages, Long.MAX_VALUE);

        pages.readAhead(CLIENT, "c", ChannelPosition.at("c@0"));
        reader.takeResponse();
        reader.readAhead();

        assertThat(server.requests().readTokens()).containsExactly("c@0");
        assertThat(pages.readRequests()).isEqualTo(1);
    }

    @Test
    void aBatchReadAheadDeliversTheSameRecordsAsWithout() {
        ChannelCheckpoint start =
                ChannelCheckpoint.adopted("c", ChannelType.STREAM, ChannelPosition.at("c@0", 2));
        ChannelReadLimit limit = new ChannelReadLimit(10, Duration.ofMinutes(1));

        List<Long> plain =
                drain(TunnelPages.direct(pages(18, 6).randomBatches(7, 6)), start, limit);
        List<Long> ahead =
                drain(
                        TunnelPages.readingAhead(pages(18, 6).randomBatches(7, 6), threads),
                        start,
                        limit);

        assertThat(ahead).hasSize(10).containsExactlyElementsOf(plain);
    }

    private static List<Long> drain(
            TunnelPages pages, ChannelCheckpoint start, ChannelReadLimit limit) {
        ChannelBatchReader reader =
                ChannelBatchReader.firstRead(pages, CLIENT, start, limit, System::nanoTime);
        List<Long> out = new ArrayList<>();
        for (Optional<ChangeRecord> r = reader.next(); r.isPresent(); r = reader.next()) {
            out.add(r.get().primaryKey().get(0).value().asInteger());
        }
        return out;
    }

    private static ChannelReader reader(TunnelPages pages, long readAheadWithin) {
        return ChannelReader.from(pages, CLIENT, "c", ChannelPosition.at("c@0"))
                .readingAheadWithin(readAheadWithin);
    }

    private static boolean requested(FakeTunnelService server, String token) {
        return server.requests().readTokens().contains(token);
    }

    /** Channel {@code c} of {@code records} records, answered {@code pageSize} at a time. */
    private static FakeTunnelService pages(int records, int pageSize) {
        return FakeTunnelService.oneStreamChannel(CLIENT.tunnelId(), "c")
                .appendRecords("c", records)
                .batchSize(pageSize);
    }
}
