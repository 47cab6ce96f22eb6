package io.tablestorecdc.emulator.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulator's HTTP/1.1 transport, on Netty's HTTP codec.
 *
 * <p>Connections are kept alive the way a production endpoint keeps them:
 *
 * <ul>
 *   <li>A connection serves one request at a time, in arrival order (pipelined requests wait their
 *       turn; reading stops while a request is served, which is also the back-pressure).
 *   <li>It is closed only between requests: after a response to a request that asked for {@code
 *       Connection: close} (or an HTTP/1.0 request without keep-alive), and when it has been idle
 *       for the idle timeout, with no request in progress and no request bytes received since the
 *       last response. Never while a response is being written, never under a request in flight.
 *   <li>Connection faults ({@link Faults.ConnectionFault}) are the only other way a connection ends
 *       on the server's side.
 * </ul>
 *
 * <p>Network I/O runs on a few event-loop threads ({@code tablestore-emulator-http-io-*}); the
 * server's work runs on a pool of workers ({@code tablestore-emulator-http-N}), because handlers
 * may block (journal fsync, table locks, injected latency).
 */
final class HttpTransport implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);

    /** Requests above this are refused with 413 (the service's own limits are far below it). */
    static final int MAX_REQUEST_BYTES = 64 * 1024 * 1024;

    /** One request as the transport hands it to the server; header names in lower case. */
    record Call(
            String method,
            String path,
            String rawQuery,
            Map<String, String> headers,
            byte[] body) {}

    /**
     * The server's answer, and the connection fault to carry out with it (the rule that hit the
     * call, if one did).
     */
    record Answer(
            int status,
            Map<String, String> headers,
            byte[] body,
            Optional<Faults.Rule> connectionFault) {

        Answer(int status, Map<String, String> headers, byte[] body) {
            this(status, headers, body, Optional.empty());
        }

        /** Closes the connection without any response. */
        static Answer closeWithoutResponse(Faults.Rule rule) {
            return new Answer(0, Map.of(), new byte[0], Optional.of(rule));
        }
    }

    private final Function<Call, Answer> server;
    private final long idleTimeoutNanos;
    private final EventLoopGroup loops;
    private final ExecutorService workers;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Channel listener;

    private HttpTransport(
            Function<Call, Answer> server, Duration idleTimeout, InetSocketAddress address)
            throws IOException {
        this.server = server;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        AtomicInteger workerCount = new AtomicInteger();
        this.workers =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t =
                                    new Thread(
                                            r,
                                            "tablestore-emulator-http-"
                                                    + workerCount.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        int ioThreads = Math.min(4, Math.max(1, Runtime.getRuntime().availableProcessors()));
        this.loops =
                new NioEventLoopGroup(
                        ioThreads, new DefaultThreadFactory("tablestore-emulator-http-io", true));
        try {
            ServerBootstrap bootstrap =
                    new ServerBootstrap()
                            .group(loops)
                            .channel(NioServerSocketChannel.class)
                            .option(ChannelOption.SO_BACKLOG, 1024)
                            .option(ChannelOption.SO_REUSEADDR, true)
                            .childOption(ChannelOption.TCP_NODELAY, true)
                            .childOption(ChannelOption.AUTO_READ, true)
                            .childHandler(
                                    new ChannelInitializer<SocketChannel>() {
                                        @Override
                                        protected void initChannel(SocketChannel ch) {
                                            Connection connection = new Connection();
                                            ch.pipeline()
                                                    .addLast(connection.bytesWatcher())
                                                    .addLast(new HttpServerCodec())
                                                    .addLast(
                                                            new HttpObjectAggregator(
                                                                    MAX_REQUEST_BYTES))
                                                    .addLast(connection);
                                        }
                                    });
            // A failed bind rethrows its cause (a BindException) unchecked.
            this.listener = bootstrap.bind(address).syncUninterruptibly().channel();
        } catch (Exception e) {
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            workers.shutdownNow();
            if (e instanceof IOException io) {
                throw io;
            }
            throw (RuntimeException) e;
        }
    }

    /** Binds {@code address} and serves every request with {@code server}. */
    static HttpTransport start(
            InetSocketAddress address, Duration idleTimeout, Function<Call, Answer> server)
            throws IOException {
        return new HttpTransport(server, idleTimeout, address);
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The client connections open now. */
    int openConnections() {
        return connections.size();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownNow();
    }

    /**
     * One client connection's state. Every field is touched on the connection's event loop only.
     */
    private final class Connection extends ChannelInboundHandlerAdapter {
        private final ArrayDeque<Pending> queued = new ArrayDeque<>();
        private boolean serving;

        /** Request bytes arrived since the last response (a request on its way). */
        private boolean receiving;

        private long idleNanos = idleTimeoutNanos;
        private ScheduledFuture<?> timer;

        /** Notes raw bytes before the HTTP codec sees them: a request is on its way. */
        ChannelInboundHandlerAdapter bytesWatcher() {
            return new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (!receiving) {
                        receiving = true;
                        // A request that starts and then stalls is cut off after the full idle
                        // timeout (as a production server's request timeout would).
                        schedule(ctx, idleTimeoutNanos);
                    }
                    ctx.fireChannelRead(msg);
                }
            };
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            connections.add(ctx.channel());
            schedule(ctx, idleNanos);
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancelTimer();
            queued.clear();
            ctx.fireChannelInactive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof FullHttpRequest request)) {
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                if (request.decoderResult().isFailure()) {
                    badRequest(ctx, request.decoderResult().cause());
                    return;
                }
                queued.add(new Pending(call(request), HttpUtil.isKeepAlive(request)));
            } finally {
                request.release();
            }
            if (!serving) {
                serveNext(ctx);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // A connection reset by the client, or bytes that are not HTTP: the client sees its
            // own error; nothing on the server is wrong.
            LOG.debug("Closing connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }

        private void serveNext(ChannelHandlerContext ctx) {
            Pending next = queued.poll();
            if (next == null) {
                serving = false;
                ctx.channel().config().setAutoRead(true);
                if (!receiving) {
                    schedule(ctx, idleNanos);
                }
                return;
            }
            serving = true;
            cancelTimer();
            // One request at a time: stop reading until it is answered.
            ctx.channel().config().setAutoRead(false);
            try {
                workers.execute(
                        () -> {
                            Answer answer = serve(next.call());
                            ctx.executor().execute(() -> answer(ctx, next, answer));
                        });
            } catch (RejectedExecutionException e) {
                ctx.close(); // the transport is closing
            }
        }

        private Answer serve(Call call) {
            try {
                return server.apply(call);
            } catch (RuntimeException e) {
                LOG.error("Internal error serving {}", call.path(), e);
                return new Answer(
                        500,
                        Map.of("content-type", "text/plain"),
                        ("Emulator internal error: " + e).getBytes(StandardCharsets.UTF_8));
            }
        }

        private void answer(ChannelHandlerContext ctx, Pending pending, Answer answer) {
            if (!ctx.channel().isActive()) {
                return;
            }
            Optional<Faults.ConnectionFault> fault =
                    answer.connectionFault().flatMap(Faults.Rule::connection);
            if (fault.isPresent()) {
                switch (fault.get()) {
                    case CLOSE_BEFORE_DISPATCH, CLOSE_BEFORE_ANSWER -> {
                        ctx.close();
                        return;
                    }
                    case RESET_MID_RESPONSE -> {
                        resetMidResponse(ctx, answer);
                        return;
                    }
                    case CLOSE_WHEN_IDLE ->
                            idleNanos =
                                    TimeUnit.MILLISECONDS.toNanos(
                                            answer.connectionFault().get().idleMillis());
                }
            }
            FullHttpResponse response =
                    new DefaultFullHttpResponse(
                            HttpVersion.HTTP_1_1,
                            HttpResponseStatus.valueOf(answer.status()),
                            Unpooled.wrappedBuffer(answer.body()));
            HttpHeaders headers = response.headers();
            answer.headers().forEach(headers::set);
            headers.setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
            boolean keepAlive = pending.keepAlive();
            if (!keepAlive) {
                headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            // The response is the end of this request; bytes from now on belong to the next.
            receiving = false;
            ctx.writeAndFlush(response)
                    .addListener(
                            (ChannelFutureListener)
                                    written -> {
                                        if (!written.isSuccess() || !keepAlive) {
                                            ctx.close();
                                        } else {
                                            serveNext(ctx);
                                        }
                                    });
        }

        private void resetMidResponse(ChannelHandlerContext ctx, Answer answer) {
            HttpResponse head =
                    new DefaultHttpResponse(
                            HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(answer.status()));
            answer.headers().forEach(head.headers()::set);
            head.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body().length);
            ctx.write(head);
            ByteBuf half = Unpooled.wrappedBuffer(answer.body(), 0, answer.body().length / 2);
            ctx.writeAndFlush(new DefaultHttpContent(half))
                    .addListener(
                            (ChannelFutureListener)
                                    written -> {
                                        // SO_LINGER 0: the close sends a RST, not a FIN.
                                        ctx.channel()
                                                .config()
                                                .setOption(ChannelOption.SO_LINGER, 0);
                                        ctx.close();
                                    });
        }

        private void badRequest(ChannelHandlerContext ctx, Throwable cause) {
            FullHttpResponse response =
                    new DefaultFullHttpResponse(
                            HttpVersion.HTTP_1_1,
                            HttpResponseStatus.BAD_REQUEST,
                            Unpooled.copiedBuffer(
                                    "Malformed HTTP request: " + cause, StandardCharsets.UTF_8));
            response.headers()
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        /** (Re)arms the timer that closes the connection if it stays quiet for {@code nanos}. */
        private void schedule(ChannelHandlerContext ctx, long nanos) {
            cancelTimer();
            timer =
                    ctx.executor()
                            .schedule(
                                    () -> {
                                        if (!serving && queued.isEmpty()) {
                                            ctx.close();
                                        }
                                    },
                                    nanos,
                                    TimeUnit.NANOSECONDS);
        }

        private void cancelTimer() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }
    }

    private record Pending(Call call, boolean keepAlive) {}

    private static Call call(FullHttpRequest request) {
        String uri = request.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        String rawQuery = q < 0 ? null : uri.substring(q + 1);
        Map<String, String> headers = new HashMap<>();
        for (Map.Entry<String, String> header : request.headers()) {
            headers.putIfAbsent(header.getKey().toLowerCase(Locale.ROOT), header.getValue());
        }
        return new Call(
                request.method().name(),
                path,
                rawQuery,
                headers,
                ByteBufUtil.getBytes(request.content()));
    }
}
