package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import com.aliyun.ots.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import java.util.Base64;
import java.util.Optional;

/**
 * A read position in a channel, in the wire form the SDK recognises: base64 of {@code Token{version
 * 2, content TokenContentV2}}. A stream token's {@code iterator} names the partition and log index
 * ({@code stream:<partition>:<index>}), which is what makes the SDK treat the channel as a stream
 * channel (and back off when it is idle); a base-data token has an empty iterator and carries its
 * snapshot offset in {@code total_count}.
 *
 * @param partitionId the partition whose log a stream token points into; empty for base data
 * @param offset the log index (stream) or snapshot row offset (base data) of the next record
 * @param timeNanos informational: the time of the position, carried in the token's timestamp
 */
record ChannelToken(Optional<String> partitionId, int offset, long timeNanos) {

    /** The literal next token that ends a channel; the SDK maps it to a null token. */
    static final String FINISHED = "finished";

    private static final long VERSION = 2;
    private static final String STREAM_PREFIX = "stream:";

    static ChannelToken stream(String partitionId, int index, long timeNanos) {
        return new ChannelToken(Optional.of(partitionId), index, timeNanos);
    }

    static ChannelToken base(int offset, long timeNanos) {
        return new ChannelToken(Optional.empty(), offset, timeNanos);
    }

    boolean isStream() {
        return partitionId.isPresent();
    }

    String encode() {
        TunnelServiceApi.TokenContentV2 content =
                TunnelServiceApi.TokenContentV2.newBuilder()
                        .setPrimaryKey(ByteString.EMPTY)
                        .setIterator(
                                partitionId.map(p -> STREAM_PREFIX + p + ":" + offset).orElse(""))
                        .setTimestamp(timeNanos)
                        .setTotalCount(offset)
                        .build();
        TunnelServiceApi.Token token =
                TunnelServiceApi.Token.newBuilder()
                        .setVersion(VERSION)
                        .setContent(content.toByteString())
                        .build();
        return Base64.getEncoder().encodeToString(token.toByteArray());
    }

    /** Decodes a token this emulator issued; empty for anything else (including "finished"). */
    static Optional<ChannelToken> decode(String text) {
        try {
            TunnelServiceApi.Token token =
                    TunnelServiceApi.Token.parseFrom(Base64.getDecoder().decode(text));
            if (token.getVersion() != VERSION) {
                return Optional.empty();
            }
            return fromContent(TunnelServiceApi.TokenContentV2.parseFrom(token.getContent()));
        } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
            return Optional.empty();
        }
    }

    private static Optional<ChannelToken> fromContent(TunnelServiceApi.TokenContentV2 content) {
        String iterator = content.getIterator();
        long count = content.getTotalCount();
        if (count < 0 || count > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        if (iterator.isEmpty()) {
            return Optional.of(base((int) count, content.getTimestamp()));
        }
        int split = iterator.lastIndexOf(':');
        if (!iterator.startsWith(STREAM_PREFIX) || split <= STREAM_PREFIX.length()) {
            return Optional.empty();
        }
        String partition = iterator.substring(STREAM_PREFIX.length(), split);
        if (!iterator.substring(split + 1).equals(Long.toString(count))) {
            return Optional.empty();
        }
        return Optional.of(stream(partition, (int) count, content.getTimestamp()));
    }
}
