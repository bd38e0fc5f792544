import type { Plugin, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { Contract } from '../contract.ts';
import { apiError } from '../errors.ts';
import { decodeJsonBody } from '../json-body.ts';
import { rejectInvalid } from '../plugins/errors.ts';
import { InvalidCursorError, PetService, type ListRequest } from '../pets/service.ts';
import { createPetValidation } from '../pets/validation.ts';

export interface PetRoutesOptions {
  service: PetService;
  contract: Contract;
}

function methodNotAllowed(allowed: string) {
  return (request: Request) => {
    throw apiError('method_not_allowed', `${request.method.toUpperCase()} is not allowed on ${request.path}; allowed: ${allowed}.`, { Allow: allowed });
  };
}

export const petRoutes: Plugin<PetRoutesOptions> = {
  name: 'pet-routes',
  version: '1.0.0',
  register(server, { service, contract }) {
    const base = contract.basePath;
    const validation = createPetValidation(contract);

    /** `Link: <...>; rel="next"` (RFC 8288) to the next page, keeping the request's filters. */
    const nextLink = (query: ListRequest, cursor: string) => {
      const params = new URLSearchParams({ limit: String(query.limit) });
      if (query.status) params.set('status', query.status);
      params.set('cursor', cursor);
      return `<${base}/pets?${params}>; rel="next"`;
    };

    const routes: ServerRoute[] = [
      {
        method: 'GET',
        path: `${base}/pets`,
        options: {
          id: 'listPets',
          validate: { query: async (query) => validation.listQuery(query as Record<string, unknown>), failAction: rejectInvalid('invalid_parameter') },
          async handler(request: Request, h: ResponseToolkit) {
            const query = request.query as unknown as ListRequest;
            try {
              const page = await service.list(query);
              const response = h.response(page.pets);
              if (page.nextCursor) response.header('Link', nextLink(query, page.nextCursor));
              return response;
            } catch (error) {
              if (error instanceof InvalidCursorError) throw apiError('invalid_parameter', error.message);
              throw error;
            }
          },
        },
      },
      {
        method: 'POST',
        path: `${base}/pets`,
        options: {
          id: 'createPet',
          // Raw bytes (decompressed): the server decodes the JSON itself, see json-body.ts.
          payload: { parse: 'gunzip', output: 'data' },
          validate: {
            payload: async (payload, options) => validation.newPet(decodeJsonBody(payload, (options as { context: { headers: Record<string, string> } }).context.headers)),
            failAction: rejectInvalid('invalid_body'),
          },
          async handler(request: Request, h: ResponseToolkit) {
            const pet = await service.create(request.payload as Parameters<PetService['create']>[0]);
            return h.response(pet).code(201).header('Location', `${base}/pets/${pet.id}`);
          },
        },
      },
      {
        method: 'GET',
        path: `${base}/pets/{petId}`,
        options: {
          id: 'getPet',
          plugins: {
            // Read by the deprecation plugin: the route says it is deprecated, no path check does.
            deprecation: { ...contract.deprecation, successor: `${base}${contract.deprecation.successor}` },
          },
          validate: { params: async (params) => ({ petId: validation.petId(params as Record<string, unknown>) }), failAction: rejectInvalid('invalid_parameter') },
          async handler(request: Request) {
            const id = request.params.petId as unknown as number;
            const pet = await service.get(id);
            if (!pet) throw apiError('pet_not_found', `Pet ${String((request.orig.params as Record<string, string>).petId)} was not found.`);
            return pet;
          },
        },
      },
      { method: '*', path: `${base}/pets`, options: { auth: false, handler: methodNotAllowed('GET, HEAD, POST') } },
      { method: '*', path: `${base}/pets/{petId}`, options: { auth: false, handler: methodNotAllowed('GET, HEAD') } },
    ];
    server.route(routes);
  },
};
