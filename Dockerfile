# Production image: build with every dependency, run with the dependencies alone.
# The steps are the ones tests/e2e/production-install.test.ts runs in a temporary copy.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# node_modules stays behind: the run stage installs its own, without devDependencies.
RUN npm run build && rm -rf node_modules .next/cache

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# NODE_ENV=production leaves devDependencies out; the prepare script skips the CLI build then.
RUN npm ci --no-audit --no-fund && npm cache clean --force
COPY --from=build /app .
EXPOSE 3000
# --expose-gc: zip deploys collect each group's unpacked Buffers as they go (lib/deploy/garbage.ts).
CMD ["node", "--expose-gc", "server.mjs"]
