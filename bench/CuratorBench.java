// SPDX-License-Identifier: Apache-2.0
// The Curator side of zookeeper_bench: Apache Curator's InterProcessMutex (Debian's jars)
// measured the way the C++ side measures distlock, against the same ZooKeeper, one round at a
// time when told, so that the two sides' rounds alternate and share the host's load alike.
//
//   CuratorBench --connect HOSTS --path /bench/curator --waiters N --commands FIFO
//
// Connects one client for the uncontended rounds and waiters + 1 for the contended ones, prints
// "ready", then reads commands, one a line, from FIFO:
//   measure uncontended S   one client, one thread: acquire + release on <path>-uncontended,
//                           as fast as it goes, for S seconds
//   measure contended S     waiters + 1 threads, each with its own client (session), loop
//                           acquire + release on <path>-contended: while one holds, `waiters`
//                           wait, and every acquisition is a handoff from the previous holder
// and answers each with "measured <acquisitions> <seconds>". It exits at the end of FIFO.
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorBench {
  private String connect;
  private String path;
  private String commands;
  private int waiters = 8;

  public static void main(String[] args) throws Exception {
    CuratorBench bench = new CuratorBench();
    for (int i = 0; i + 1 < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--connect": bench.connect = value; break;
        case "--path": bench.path = value; break;
        case "--commands": bench.commands = value; break;
        case "--waiters": bench.waiters = Integer.parseInt(value); break;
        default:
          System.err.println("CuratorBench: unknown option " + args[i]);
          System.exit(64);
      }
    }
    if (bench.connect == null || bench.path == null || bench.commands == null) {
      System.err.println("CuratorBench: --connect, --path and --commands are required");
      System.exit(64);
    }
    try {
      bench.run();
      System.exit(0);
    } catch (Exception e) {
      System.err.println("CuratorBench: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  private CuratorFramework newClient() throws Exception {
    CuratorFramework client = CuratorFrameworkFactory.builder()
        .connectString(connect)
        .sessionTimeoutMs(10000)
        .connectionTimeoutMs(10000)
        .retryPolicy(new ExponentialBackoffRetry(50, 10, 1000))
        .build();
    client.start();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("could not connect to " + connect);
    }
    return client;
  }

  private void run() throws Exception {
    List<CuratorFramework> uncontended = List.of(newClient());
    List<CuratorFramework> contended = new ArrayList<>();
    for (int i = 0; i <= waiters; ++i) contended.add(newClient());
    System.out.println("ready");
    System.out.flush();
    try (BufferedReader in = Files.newBufferedReader(Paths.get(commands))) {
      for (String line; (line = in.readLine()) != null;) {
        String[] words = line.trim().split(" ");
        if (words.length != 3 || !words[0].equals("measure")) {
          throw new IllegalArgumentException("unknown command: " + line);
        }
        boolean isContended = words[1].equals("contended");
        if (!isContended && !words[1].equals("uncontended")) {
          throw new IllegalArgumentException("unknown mode: " + line);
        }
        double seconds = Double.parseDouble(words[2]);
        long start = System.nanoTime();
        long count = measure(isContended ? contended : uncontended,
                             path + "-" + words[1], seconds);
        double elapsed = (System.nanoTime() - start) / 1e9;
        System.out.println("measured " + count + " " + elapsed);
        System.out.flush();
      }
    }
    for (CuratorFramework client : uncontended) client.close();
    for (CuratorFramework client : contended) client.close();
  }

  // Acquisitions completed by all clients' threads within `duration` seconds.
  private static long measure(List<CuratorFramework> clients, String lockPath, double duration)
      throws Exception {
    AtomicLong count = new AtomicLong();
    AtomicBoolean failed = new AtomicBoolean();
    long deadline = System.nanoTime() + (long) (duration * 1e9);
    List<Thread> workers = new ArrayList<>();
    for (CuratorFramework client : clients) {
      Thread worker = new Thread(() -> {
        InterProcessMutex lock = new InterProcessMutex(client, lockPath);
        try {
          while (System.nanoTime() < deadline) {
            lock.acquire();
            boolean inTime = System.nanoTime() < deadline;
            lock.release();
            if (inTime) count.incrementAndGet();
          }
        } catch (Exception e) {
          System.err.println("CuratorBench: " + e);
          failed.set(true);
        }
      });
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) worker.join();
    if (failed.get()) throw new IllegalStateException("a worker failed");
    return count.get();
  }
}
